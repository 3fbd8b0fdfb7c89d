package publish

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/internal/fakeclock"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
)

const (
	owner   = "octo"
	repo    = "hello"
	full    = owner + "/" + repo
	headSHA = "0123456789abcdef0123456789abcdef01234567"
	prNum   = 7
)

// newClock is the publish tests' clock.
func newClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

type env struct {
	srv   *fakegithub.Server
	clock *fakeclock.Clock
	pub   *publisher
	tr    *githubapi.Transport
	// target is the publisher's target, for sessions.
	target Target
}

// setup starts a fake GitHub with one pull request and a publisher for it.
// Writes are not paced unless pace is true, so the sleeps a test sees are
// the retries alone.
func setup(t *testing.T, pace bool) *env {
	t.Helper()
	srv := fakegithub.New(t)
	clk := newClock()
	srv.SetNow(clk.Now)
	srv.AddPull(full, fakegithub.Pull{Number: prNum, HeadSHA: headSHA, HeadRef: "feature", BaseRef: "main"})
	tr := &githubapi.Transport{Clock: clk}
	if !pace {
		tr.WriteInterval = -1
	}
	c, err := githubapi.NewClient(srv.URL, "tok", tr)
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Client: c, Owner: owner, Repo: repo, HeadSHA: headSHA, PR: prNum,
		CommentAuthor: fakegithub.DefaultLogin, Clock: clk, DetailsURL: "https://ci.invalid/run/1"}
	p, err := newPublisher(target)
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, clock: clk, pub: p, tr: tr, target: target}
}

// session is a write session on e's pull request whose verification
// gives rep (or err), with the gate on main and the comment under mode.
func (e *env) session(rep *report.Report, err error, mode CommentMode) *Session {
	var names []string
	if rep != nil {
		for _, r := range rep.Results {
			names = append(names, r.Check)
		}
	}
	return &Session{
		Target: e.target, Mode: ModeWrite, Checks: names, CommentMode: mode,
		Verify: func(context.Context) (*report.Report, error) { return rep, err },
		Gate:   func(context.Context) checks.Gate { return mainGate },
	}
}

// publishAll publishes rep through a session: runs, gate, and the comment
// under mode.
func (e *env) publishAll(t *testing.T, rep *report.Report, mode CommentMode) Outcome {
	t.Helper()
	out := e.session(rep, nil, mode).Run(context.Background())
	if err := errors.Join(out.Errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

// sampleReport has a failing render check, a passing restore check and a
// pytest check that did not run.
func sampleReport() *report.Report {
	rs := []checks.Result{
		{Check: "render", Conclusion: checks.Failure, Title: "1 of 4 renders fails bash -n",
			Summary:  "The head renders test.sh with a syntax error when run_pytest is true.",
			Findings: checktest.Findings(1), Figures: []checks.Figure{{Label: "renders", Value: "4", Command: "template-verify run --only render"}},
			Duration: 1200 * time.Millisecond},
		{Check: "restore", Conclusion: checks.Success, Title: "24 of 24 scenarios match the model", Summary: "Every scenario matches."},
		{Check: "pytest", Conclusion: checks.NotRun, Title: "python3 is missing", Summary: "The pytest check did not run: python3 is not on PATH."},
	}
	return &report.Report{Repo: full, BaseRev: "main", HeadRev: "feature", Base: strings.Repeat("b", 40), Head: headSHA,
		MergeBase: strings.Repeat("b", 40), Results: rs, Overall: checks.Overall(rs), Command: "template-verify run --base main --head feature"}
}

// paths lists "METHOD path" of requests.
func paths(rs []fakegithub.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}
