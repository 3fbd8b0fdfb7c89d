package publish

import (
	"context"
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/report"
)

// CommentMode says when a surface publishes the verification comment.
type CommentMode string

// The comment modes.
const (
	// CommentAlways publishes the comment on every run.
	CommentAlways CommentMode = "always"
	// CommentChanges publishes it when the pull request changes a
	// template, or edits the comment when it exists already.
	CommentChanges CommentMode = "changes"
	// CommentFailures publishes it when a check fails, or edits the
	// comment when it exists already (so that a fixed pull request does
	// not keep a comment that says it fails).
	CommentFailures CommentMode = "failures"
	// CommentOff never publishes or edits the comment.
	CommentOff CommentMode = "off"
)

// DefaultCommentMode is the mode of the Action and the App: no comment on
// a pull request that changes no template.
const DefaultCommentMode = CommentChanges

// commentModes are the valid modes, in the order the docs list them.
var commentModes = []CommentMode{CommentAlways, CommentChanges, CommentFailures, CommentOff}

// ParseCommentMode reads a mode; empty is DefaultCommentMode.
func ParseCommentMode(s string) (CommentMode, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return DefaultCommentMode, nil
	}
	for _, m := range commentModes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q is not one of always, changes, failures, off", s)
}

// creates reports whether the mode makes a new comment for rep. A mode
// that does not may still edit a comment that exists.
func (m CommentMode) creates(rep *report.Report) bool {
	switch m {
	case CommentAlways:
		return true
	case CommentChanges:
		return len(rep.Templates) > 0
	case CommentFailures:
		return rep.Overall.Failed()
	}
	return false
}

// commentFor publishes body as the comment of rep under mode: it creates
// or edits the comment when the mode wants one for rep, edits it (and
// creates none) when the mode does not but the comment exists, and does
// nothing for CommentOff. ok is false when no comment was published.
func (p *publisher) commentFor(ctx context.Context, mode CommentMode, rep *report.Report, body string) (c CommentResult, ok bool, err error) {
	switch {
	case mode == CommentOff:
		return CommentResult{}, false, nil
	case mode.creates(rep):
		c, err = p.Comment(ctx, body)
		return c, err == nil, err
	}
	return p.comment(ctx, body, false)
}
