package publish

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/formula-code/template-verify/report"
)

// TestAppRun: the App's own run goes queued, in progress and completed
// through AppRun; OpenSessionRuns finds only the open per-check runs; and
// ConcludeOpen concludes the open runs it is given, leaving a completed
// one as it was.
func TestAppRun(t *testing.T) {
	e := setup(t, false)
	ctx := context.Background()
	a := AppRun{Client: e.target.Client, Owner: owner, Repo: repo, Now: e.clock.Now}
	id, err := a.CreateQueued(ctx, headSHA, "delivery-1", report.RunOutput{Title: "queued", Summary: "waits"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Set(ctx, id, "", report.RunOutput{Title: "runs", Summary: "runs"}); err != nil {
		t.Fatal(err)
	}
	// Per-check runs of a verification: one open, one completed.
	open, err := a.CreateQueued(ctx, headSHA, "x", report.RunOutput{Title: "t", Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	renamed := func(id int64, name, conclusion string) {
		t.Helper()
		opts := map[string]any{"name": name}
		if conclusion != "" {
			opts["status"], opts["conclusion"] = "completed", conclusion
		}
		req, err := e.target.Client.NewRequest("PATCH", "repos/"+full+"/check-runs/"+strconv.FormatInt(id, 10), opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.target.Client.Do(ctx, req, nil); err != nil {
			t.Fatal(err)
		}
	}
	renamed(open, RunName("render"), "")
	done, err := a.CreateQueued(ctx, headSHA, "y", report.RunOutput{Title: "t", Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	renamed(done, RunName("pytest"), "success")

	// The App of the runs (the fake's App of the token); another App's
	// runs are left alone.
	appID := e.srv.CheckRuns()[0].AppID
	if other, err := a.OpenSessionRuns(ctx, headSHA, appID+1); err != nil || len(other) != 0 {
		t.Errorf("runs of App %d seen as another App's: %v, %v", appID, other, err)
	}
	ids, err := a.OpenSessionRuns(ctx, headSHA, appID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []int64{open}) {
		t.Errorf("open session runs %v, want [%d] (the App's own run and the completed one are not)", ids, open)
	}
	if err := a.ConcludeOpen(ctx, []int64{open, done}, "cancelled", report.RunOutput{Title: "stopped", Summary: "the server stopped"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Set(ctx, id, "failure", report.RunOutput{Title: "failed", Summary: "why"}); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{id: "failure", open: "cancelled", done: "success"}
	for _, cr := range e.srv.CheckRuns() {
		if w, ok := want[cr.ID]; ok && (cr.Status != "completed" || cr.Conclusion != w) {
			t.Errorf("run %d (%s): %s/%s, want completed/%s", cr.ID, cr.Name, cr.Status, cr.Conclusion, w)
		}
	}
}
