package publish

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/report"
)

// markVerifying edits our comment, when the pull request has one, to show
// "verifying <sha>…" over its previous result (report.Verifying). It
// creates no comment: the result decides whether there is one. ok is
// false when there was no comment to edit.
func (p *publisher) markVerifying(ctx context.Context) (ok bool, err error) {
	if p.pr <= 0 {
		return false, errors.New("mark the comment as verifying: no pull request number")
	}
	defer commentLocks.lock(strings.ToLower(p.owner+"/"+p.repo) + "#" + strconv.Itoa(p.pr))()
	ours, err := p.findComments(ctx)
	if err != nil {
		return false, err
	}
	if len(ours) == 0 {
		return false, nil
	}
	old := ours[0]
	body := report.Verifying(old.GetBody(), p.headSHA)
	if _, _, err := p.client.Issues.EditComment(ctx, p.owner, p.repo, old.GetID(), &github.IssueComment{Body: ptr(body)}); err != nil {
		return false, fmt.Errorf("mark comment %d on pull request #%d as verifying: %w", old.GetID(), p.pr, err)
	}
	return true, nil
}

// MarkVerifying shows "verifying <sha>…" over the previous result in the
// pull request's comment, found by its hidden marker, while this session
// verifies the push. It does so only in ModeWrite, with a pull request and
// a CommentMode that is not off, and only when the comment exists; the
// comment that Finish publishes replaces the line. ok is false when it
// edited nothing. The Action calls it from Run; the App calls it once
// after Start.
func (s *Session) MarkVerifying(ctx context.Context) (ok bool, err error) {
	if s.Mode != ModeWrite || s.CommentMode == CommentOff || s.CommentMode == "" || s.Target.PR <= 0 {
		return false, nil
	}
	if err := s.open(); err != nil {
		return false, err
	}
	return s.pub.markVerifying(ctx)
}
