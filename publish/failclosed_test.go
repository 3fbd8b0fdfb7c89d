package publish

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakegithub"
)

func TestAbortWithUnknownPolicyFailsTheGate(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	ctx := context.Background()
	runs, err := e.pub.Start(ctx, []string{"render"})
	if err != nil {
		t.Fatal(err)
	}
	if err := runs.Abort(ctx, "failure", "The verification stopped", "clone failed: exit 128", checks.Gate{BaseRef: "main", PolicyErr: errors.New("no clone")}); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.srv.CheckRuns() {
		if r.Status != "completed" || r.Conclusion != "failure" || !strings.Contains(r.Summary, "clone failed") {
			t.Errorf("%s: %s/%s %q", r.Name, r.Status, r.Conclusion, r.Summary)
		}
	}
}

func TestStartFailureNeverReadsAsPassed(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	post := fakegithub.Unprocessable("head_sha is not a commit")
	post.Method, post.Skip = "POST", 1
	e.srv.FailNext(1, post)
	if _, err := e.pub.Start(context.Background(), []string{"render", "restore"}); err == nil {
		t.Fatal("Start did not fail")
	}
	for _, r := range e.srv.CheckRuns() {
		if r.Status != "completed" || r.Conclusion != "failure" {
			t.Errorf("run %s: %s/%s, want completed/failure: GitHub counts neutral as passed", r.Name, r.Status, r.Conclusion)
		}
	}
}
