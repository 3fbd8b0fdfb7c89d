package publish

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/report"
)

// commentEdits are the bodies of the comment edits, in order.
func commentEdits(srv *fakegithub.Server) []string {
	var out []string
	for _, r := range srv.Writes() {
		if r.Method == "PATCH" && strings.Contains(r.Path, "/issues/comments/") {
			body, _ := r.JSON["body"].(string)
			out = append(out, body)
		}
	}
	return out
}

// While a push is verified, the comment of the previous push shows
// "verifying <sha>…" over its result; the new result replaces it.
func TestSessionMarksTheCommentVerifying(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	prevRep := sampleReport()
	prevRep.Head = strings.Repeat("a", 40)
	prev, err := prevRep.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	id := e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, prev)
	e.srv.AddComment(full, prNum, "someone", report.Marker+"\nnot ours")

	var during string
	s := e.session(sampleReport(), nil, CommentAlways)
	verify := s.Verify
	s.Verify = func(ctx context.Context) (*report.Report, error) {
		for _, c := range e.srv.Comments(full, prNum) {
			if c.ID == id {
				during = c.Body
			}
		}
		return verify(ctx)
	}
	out := s.Run(context.Background())
	if err := errors.Join(out.Errs...); err != nil {
		t.Fatal(err)
	}
	if !report.IsVerifying(during) || !strings.Contains(during, "Verifying `"+headSHA[:12]+"`…") {
		t.Fatalf("during the verification the comment reads:\n%.300s", during)
	}
	if !strings.HasSuffix(during, strings.TrimPrefix(prev, report.Marker+"\n")) {
		t.Errorf("the previous result is not whole under the verifying line")
	}
	edits := commentEdits(e.srv)
	if len(edits) != 2 || !report.IsVerifying(edits[0]) || report.IsVerifying(edits[1]) {
		t.Fatalf("%d comment edits; want the verifying line, then the result", len(edits))
	}
	for _, c := range e.srv.Comments(full, prNum) {
		if c.ID == id && (report.IsVerifying(c.Body) || !strings.Contains(c.Body, "at `"+headSHA[:12]+"`")) {
			t.Errorf("the final comment:\n%.300s", c.Body)
		}
		if c.ID != id && strings.Contains(c.Body, "Verifying") {
			t.Errorf("another author's comment was edited")
		}
	}
}

// With no comment yet, or with comments off, MarkVerifying writes nothing.
func TestMarkVerifyingCreatesNothing(t *testing.T) {
	t.Parallel()
	for _, mode := range []CommentMode{CommentAlways, CommentOff} {
		e := setup(t, false)
		if mode == CommentOff {
			e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nold")
		}
		ok, err := e.session(sampleReport(), nil, mode).MarkVerifying(context.Background())
		if err != nil || ok {
			t.Errorf("%s: ok %v, err %v", mode, ok, err)
		}
		if w := e.srv.Writes(); len(w) != 0 {
			t.Errorf("%s: writes %v", mode, paths(w))
		}
	}
}
