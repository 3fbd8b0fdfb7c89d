package publish

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
)

// allConcluded fails the test when a run is not completed with want, or
// its summary lacks why.
func allConcluded(t *testing.T, srv *fakegithub.Server, want, why string) {
	t.Helper()
	runs := srv.CheckRuns()
	if len(runs) == 0 {
		t.Fatal("no check run")
	}
	for _, r := range runs {
		if r.Status != "completed" || r.Conclusion != want || !strings.Contains(r.Summary, why) {
			t.Errorf("%s: %s/%s %q, want completed/%s with %q", r.Name, r.Status, r.Conclusion, r.Summary, want, why)
		}
	}
}

// Any error or panic in Verify, and a cancel during it, concludes every
// run and the gate as failure with the reason: none stays in progress,
// none reads as passed.
func TestSessionFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		verify func(ctx context.Context, cancel func()) (*report.Report, error)
		why    string
	}{
		{"error", func(context.Context, func()) (*report.Report, error) {
			return nil, errors.New("clone failed: exit 128")
		}, "clone failed: exit 128"},
		{"panic", func(context.Context, func()) (*report.Report, error) {
			panic("index out of range")
		}, "internal error: index out of range"},
		{"no report", func(context.Context, func()) (*report.Report, error) { return nil, nil }, "gave no report"},
		{"cancelled", func(ctx context.Context, cancel func()) (*report.Report, error) {
			cancel()
			return nil, ctx.Err()
		}, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := e.session(nil, nil, CommentAlways)
			s.Checks = []string{"render", "restore"}
			s.Verify = func(ctx context.Context) (*report.Report, error) { return tc.verify(ctx, cancel) }
			out := s.Run(ctx)
			if out.Err == nil || len(out.Errs) > 0 {
				t.Fatalf("outcome %+v", out)
			}
			allConcluded(t, e.srv, "failure", tc.why)
			if n := len(e.srv.CheckRuns()); n != 3 {
				t.Errorf("%d runs, want render, restore and the gate", n)
			}
			if len(e.srv.Comments(full, prNum)) != 0 {
				t.Error("a failed verification commented")
			}
		})
	}
}

// A session whose runs were never made (the App's crash path) makes them
// to conclude them, so that the gate says why.
func TestSessionAbortMakesTheRuns(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	s := e.session(nil, nil, CommentOff)
	s.Checks = []string{"render"}
	if err := s.Abort(context.Background(), "failure", "The verification crashed 3 times", "the server stopped during each run"); err != nil {
		t.Fatal(err)
	}
	allConcluded(t, e.srv, "failure", "the server stopped")
}

// The gate policy comes from the Gate function (the base's config) and
// decides the gate: a failing render on a branch the policy does not gate
// skips the gate.
func TestSessionGatePolicy(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	s := e.session(sampleReport(), nil, CommentOff)
	s.Gate = func(context.Context) checks.Gate { return checks.Gate{BaseRef: "feature", Branches: []string{"main"}} }
	out := s.Run(context.Background())
	if out.Gate.Verdict.Conclusion != "skipped" {
		t.Errorf("gate %+v, want skipped off the gated branches", out.Gate)
	}
	s = e.session(sampleReport(), nil, CommentOff)
	s.Gate = nil // unknown policy: the gate applies
	if out := s.Run(context.Background()); out.Gate.Verdict.Conclusion != "failure" {
		t.Errorf("gate %+v without a policy, want failure", out.Gate)
	}
}

func TestSessionReadOnlyWritesNothing(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	s := e.session(sampleReport(), nil, CommentAlways)
	s.Mode = ModeReadOnly
	out := s.Run(context.Background())
	if out.Report == nil || out.Err != nil {
		t.Fatalf("outcome %+v", out)
	}
	if w := e.srv.Writes(); len(w) != 0 {
		t.Errorf("read-only session wrote %v", paths(w))
	}
	s.Verify = func(context.Context) (*report.Report, error) { return nil, errors.New("boom") }
	s.Run(context.Background())
	if w := e.srv.Writes(); len(w) != 0 {
		t.Errorf("read-only session wrote %v after an error", paths(w))
	}
}

// A token that may not write (403 on the first run) turns the session
// read-only: no other write follows.
func TestSessionForbiddenTurnsReadOnly(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.srv.FailNext(1, fakegithub.Forbidden())
	out := e.session(sampleReport(), nil, CommentAlways).Run(context.Background())
	if len(out.Errs) != 0 || !githubapi.IsForbidden(out.StartErr) || out.Mode != ModeReadOnly {
		t.Fatalf("outcome %+v, want one 403 and read-only", out)
	}
	if n := len(e.srv.Writes()); n != 1 {
		t.Errorf("%d writes, want the one refused", n)
	}
}

// ModeWorkflowRun names the runs by the report it reads; an untrusted
// report shows marked results, its passing gate is action_required, and
// the comment carries the banner.
func TestSessionWorkflowRunUntrusted(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	rs := []checks.Result{{Check: "render", Conclusion: checks.Success, Title: "4 of 4 render"}}
	rep := &report.Report{Repo: full, Head: headSHA, Results: rs, Overall: checks.Overall(rs)}
	s := e.session(rep, nil, CommentAlways)
	s.Mode, s.Checks = ModeWorkflowRun, nil
	s.Untrusted = true
	out := s.Run(context.Background())
	if len(out.Errs) > 0 || out.Gate.Verdict.Conclusion != "action_required" {
		t.Fatalf("outcome %+v, want the gate action_required", out)
	}
	runs := e.srv.CheckRuns()
	if len(runs) != 2 || !strings.HasPrefix(runs[0].Title, "Reported by the PR's job") {
		t.Errorf("runs %+v", runs)
	}
	cs := e.srv.Comments(full, prNum)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "[!WARNING]") {
		t.Fatalf("comments %+v", cs)
	}
	if rep.Results[0].Title != "4 of 4 render" {
		t.Error("marking the results changed the report")
	}
}
