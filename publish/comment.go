package publish

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/report"
)

// CommentResult is the published comment.
type CommentResult struct {
	ID      int64
	URL     string
	Created bool // false: an earlier comment was edited
}

// CommentBody makes body fit for the comment: it starts with the hidden
// marker, and it is at most MaxCommentChars characters, cut without
// breaking a code fence or a table, with a note that says what was cut.
func CommentBody(body string) string {
	if !strings.Contains(body, report.Marker) {
		body = report.Marker + "\n" + body
	}
	body, _ = cutMarkdown(body, MaxCommentChars, inChars)
	return body
}

// Comment publishes body as the verification comment of the pull request:
// it edits the comment that has the marker and the author's login, or
// creates it when there is none.
func (p *Publisher) Comment(ctx context.Context, body string) (CommentResult, error) {
	if p.pr <= 0 {
		return CommentResult{}, errors.New("publish the comment: no pull request number")
	}
	body = CommentBody(body)
	old, err := p.FindComment(ctx)
	if err != nil {
		return CommentResult{}, err
	}
	if old != nil {
		c, _, err := p.client.Issues.EditComment(ctx, p.owner, p.repo, old.GetID(), &github.IssueComment{Body: ptr(body)})
		if err != nil {
			return CommentResult{}, fmt.Errorf("edit comment %d on pull request #%d: %w", old.GetID(), p.pr, err)
		}
		return CommentResult{ID: c.GetID(), URL: c.GetHTMLURL()}, nil
	}
	c, _, err := p.client.Issues.CreateComment(ctx, p.owner, p.repo, p.pr, &github.IssueComment{Body: ptr(body)})
	if err != nil {
		return CommentResult{}, fmt.Errorf("create the comment on pull request #%d: %w", p.pr, err)
	}
	return CommentResult{ID: c.GetID(), URL: c.GetHTMLURL(), Created: true}, nil
}

// FindComment reads every page of the pull request's comments and returns
// the first one that has the marker and is by the comment author, or nil.
func (p *Publisher) FindComment(ctx context.Context) (*github.IssueComment, error) {
	author, err := p.commentAuthor(ctx)
	if err != nil {
		return nil, err
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := p.client.Issues.ListComments(ctx, p.owner, p.repo, p.pr, opts)
		if err != nil {
			return nil, fmt.Errorf("list the comments of pull request #%d (page %d): %w", p.pr, max(opts.Page, 1), err)
		}
		for _, c := range cs {
			if strings.Contains(c.GetBody(), report.Marker) && strings.EqualFold(c.GetUser().GetLogin(), author) {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// commentAuthor is the configured author, else the token's user.
func (p *Publisher) commentAuthor(ctx context.Context) (string, error) {
	if p.author != "" {
		return p.author, nil
	}
	u, _, err := p.client.Users.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("find the login of the token to find the comment again (set the comment author): %w", err)
	}
	p.author = u.GetLogin()
	return p.author, nil
}
