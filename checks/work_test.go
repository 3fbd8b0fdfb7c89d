package checks

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// countingCheck plans n units and finishes them one by one.
type countingCheck struct {
	name string
	n    int
}

func (c countingCheck) Name() string { return c.name }
func (c countingCheck) Run(ctx context.Context, _ *Input) Result {
	AddWork(ctx, c.n, "scenario runs")
	for range c.n {
		WorkDone(ctx, 1)
	}
	return Result{Conclusion: Success}
}

type workRecorder struct {
	mu     sync.Mutex
	events []string
}

func (w *workRecorder) Started(string)          {}
func (w *workRecorder) Finished(string, Result) {}
func (w *workRecorder) Work(check string, done, total int, unit string) {
	w.mu.Lock()
	w.events = append(w.events, fmt.Sprintf("%s %d/%d %s", check, done, total, unit))
	w.mu.Unlock()
}

// TestWorkCountsReachTheProgress: the counts a check reports reach a
// WorkProgress under the check's name; with a plain Progress or none,
// AddWork and WorkDone do nothing.
func TestWorkCountsReachTheProgress(t *testing.T) {
	rec := &workRecorder{}
	(&Runner{Progress: rec}).Run(context.Background(), &Input{}, []Check{countingCheck{"restore", 2}, countingCheck{"render", 0}})
	want := []string{"render 0/0 scenario runs", "restore 0/2 scenario runs", "restore 1/2 scenario runs", "restore 2/2 scenario runs"}
	got := slices.Clone(rec.events)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	for _, p := range []Progress{nil, &LineProgress{W: &syncDiscard{}}} {
		res := (&Runner{Progress: p}).Run(context.Background(), &Input{}, []Check{countingCheck{"restore", 3}})
		if res[0].Conclusion != Success {
			t.Errorf("with %T: %v", p, res[0].Conclusion)
		}
	}
}

type syncDiscard struct{}

func (syncDiscard) Write(p []byte) (int, error) { return len(p), nil }
