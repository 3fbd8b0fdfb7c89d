package publish

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/report"
)

// CommentResult is the published comment.
type CommentResult struct {
	ID      int64
	URL     string
	Created bool // false: an earlier comment was edited
}

// commentLocks serialises the find-or-create of the comment per pull
// request in this process, so that two jobs of one pull request (two
// workers) cannot both find no comment and both create one.
var commentLocks = keyedMutex{held: map[string]*keyedEntry{}}

type keyedMutex struct {
	mu   sync.Mutex
	held map[string]*keyedEntry
}

type keyedEntry struct {
	mu   sync.Mutex
	refs int
}

// lock locks key and returns its unlock. Entries go when no one holds or
// waits for them, so the map does not grow with the pull requests seen.
func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	e := k.held[key]
	if e == nil {
		e = &keyedEntry{}
		k.held[key] = e
	}
	e.refs++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(k.held, key)
		}
		k.mu.Unlock()
	}
}

// Comment publishes body as the verification comment of the pull request:
// it edits the comment that starts with the marker and has the author's
// login, or creates it when there is none. When earlier runs left more
// than one such comment, it edits the oldest and deletes the others.
// Within this process, one Comment per pull request runs at a time.
func (p *publisher) Comment(ctx context.Context, body string) (CommentResult, error) {
	c, _, err := p.comment(ctx, body, true)
	return c, err
}

// comment edits the oldest of our comments and deletes the other copies;
// with none, it creates the comment when create is true. ok is false when
// it published nothing.
func (p *publisher) comment(ctx context.Context, body string, create bool) (CommentResult, bool, error) {
	if p.pr <= 0 {
		return CommentResult{}, false, errors.New("publish the comment: no pull request number")
	}
	body = report.CommentBody(body)
	defer commentLocks.lock(strings.ToLower(p.owner+"/"+p.repo) + "#" + strconv.Itoa(p.pr))()
	ours, err := p.findComments(ctx)
	if err != nil {
		return CommentResult{}, false, err
	}
	if len(ours) > 0 {
		old := ours[0]
		c, _, err := p.client.Issues.EditComment(ctx, p.owner, p.repo, old.GetID(), &github.IssueComment{Body: ptr(body)})
		if err != nil {
			return CommentResult{}, false, fmt.Errorf("edit comment %d on pull request #%d: %w", old.GetID(), p.pr, err)
		}
		for _, extra := range ours[1:] {
			if _, err := p.client.Issues.DeleteComment(ctx, p.owner, p.repo, extra.GetID()); err != nil {
				p.log.Warn("delete a second copy of the comment", "comment", extra.GetID(), "pr", p.pr, "error", err)
			} else {
				p.log.Info("deleted a second copy of the comment", "comment", extra.GetID(), "kept", old.GetID(), "pr", p.pr)
			}
		}
		return CommentResult{ID: c.GetID(), URL: c.GetHTMLURL()}, true, nil
	}
	if !create {
		return CommentResult{}, false, nil
	}
	c, _, err := p.client.Issues.CreateComment(ctx, p.owner, p.repo, p.pr, &github.IssueComment{Body: ptr(body)})
	if err != nil {
		return CommentResult{}, false, fmt.Errorf("create the comment on pull request #%d: %w", p.pr, err)
	}
	return CommentResult{ID: c.GetID(), URL: c.GetHTMLURL(), Created: true}, true, nil
}

// maxCommentPages caps the pages of 100 comments findComments reads while
// it holds the pull request's lock: a pull request with thousands of
// comments must not hold the lock, and the rate limit, for minutes.
const maxCommentPages = 30

// findComments reads the pull request's comments, oldest first, up to
// maxCommentPages pages (3,000 comments), and returns those that start
// with the marker and are by the comment author. Our comment is made at
// the first verification, so it is among the oldest. Past the cap the
// other comments are not read: when none of ours is in the pages read, a
// new comment is made, and the log says that the cap was reached.
func (p *publisher) findComments(ctx context.Context) ([]*github.IssueComment, error) {
	author, err := p.commentAuthor(ctx)
	if err != nil {
		return nil, err
	}
	var ours []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 1; ; page++ {
		cs, resp, err := p.client.Issues.ListComments(ctx, p.owner, p.repo, p.pr, opts)
		if err != nil {
			return nil, fmt.Errorf("list the comments of pull request #%d (page %d): %w", p.pr, max(opts.Page, 1), err)
		}
		for _, c := range cs {
			if report.IsComment(c.GetBody()) && strings.EqualFold(c.GetUser().GetLogin(), author) {
				ours = append(ours, c)
			}
		}
		if resp.NextPage == 0 {
			return ours, nil
		}
		if page == maxCommentPages {
			p.log.Warn("the pull request has more comments than are read; the later ones are not searched for the verification comment",
				"pr", p.pr, "pages", maxCommentPages, "found", len(ours))
			return ours, nil
		}
		opts.Page = resp.NextPage
	}
}

// commentAuthor is the configured author, else the token's user.
func (p *publisher) commentAuthor(ctx context.Context) (string, error) {
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
