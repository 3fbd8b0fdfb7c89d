package app

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// The App comments as the Action does by default (comment mode changes):
// a pull request that changes no template gets check runs and no comment;
// a maintainer's command gets its answer as a comment. The pull
// request's body reaches the verification as the description. Before,
// the App commented on every pull request and passed no description.
func TestAppCommentModeAndDescription(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	var mu sync.Mutex
	var descriptions []string
	h.start(func(ctx context.Context, in verify.Options) (*report.Report, error) {
		rep, err := v.fn(ctx, in)
		if rep != nil {
			rep.Templates = nil // the pull request changes no template
		}
		mu.Lock()
		descriptions = append(descriptions, in.Description)
		mu.Unlock()
		return rep, err
	})
	head := h.repo.heads[0]
	h.addPull(7, head, false)
	h.gh.SetPermission(testFull, "dev", "write")
	var p map[string]any
	if err := json.Unmarshal(h.pullPayload("synchronize", 7, head, false), &p); err != nil {
		t.Fatal(err)
	}
	obj(p, "pull_request")["body"] = "Why: the restore step kept added files."
	body, _ := json.Marshal(p)
	if got := h.send("pull_request", "cm-1", body); got != http.StatusAccepted {
		t.Fatalf("status %d, want 202", got)
	}
	h.waitFor("the runs of the push", func() bool { return h.allDone(head, 3) && h.idle() })
	if cs := h.gh.Comments(testFull, 7); len(cs) != 0 {
		t.Fatalf("%d comments on a pull request that changes no template", len(cs))
	}
	mu.Lock()
	if len(descriptions) != 1 || descriptions[0] != "Why: the restore step kept added files." {
		t.Errorf("descriptions %q", descriptions)
	}
	mu.Unlock()

	if got := h.send("issue_comment", "cm-2", h.commentPayload(7, "dev", "/template-verify")); got != http.StatusAccepted {
		t.Fatalf("status %d, want 202", got)
	}
	h.waitFor("the answer to the command", func() bool { return len(h.gh.Comments(testFull, 7)) == 1 && h.idle() })
	h.stop()
}
