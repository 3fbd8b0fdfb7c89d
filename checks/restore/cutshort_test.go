package restore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// cancelAtRuns cancels the verification a moment after the first scenario
// run is planned, so that the step (which sleeps 600 s) is killed by the
// end of the verification, not by the scenario's own limit.
type cancelAtRuns struct {
	cancel context.CancelFunc
	once   sync.Once
}

func (p *cancelAtRuns) Started(string)                 {}
func (p *cancelAtRuns) Finished(string, checks.Result) {}
func (p *cancelAtRuns) Work(_ string, _, _ int, unit string) {
	if unit == "scenario runs" {
		p.once.Do(func() { time.AfterFunc(time.Second, p.cancel) })
	}
}

// TestCutShortIsNotAFailure: scenario runs that the end of the check (its
// time limit or a cancel) killed do not "not match the model". The check
// says it stopped, after how many runs, and the gate treats that as not
// run; a step's failure it never saw is not reported.
func TestCutShortIsNotAFailure(t *testing.T) {
	in := scriptInput(t, "hang.sh")
	in.Config.Restore.Random.Count = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New().WithOptions(Options{ScenarioTimeout: time.Hour, Catalogue: Catalogue()[:2]})
	r := checks.Runner{Progress: &cancelAtRuns{cancel: cancel}}
	res := r.Run(ctx, in, []checks.Check{c})[0]
	if res.Conclusion != checks.Cancelled {
		t.Fatalf("conclusion %s (%s), want cancelled", res.Conclusion, res.Title)
	}
	// 2 catalogue scenarios and 5 random sets, none finished.
	if !strings.Contains(res.Summary, "after 0 of 7 scenario runs. 0 of them failed") {
		t.Errorf("summary %q does not say how many runs finished", res.Summary)
	}
	for _, f := range res.Findings {
		if strings.Contains(f.Title, "scenario") || strings.Contains(f.Title, "random") {
			t.Errorf("finding %q: a run the cancel killed is not a failure", f.Title)
		}
	}
}
