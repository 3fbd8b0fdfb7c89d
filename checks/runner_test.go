package checks

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

type fakeCheck struct {
	name string
	run  func(ctx context.Context) Result
}

func (f fakeCheck) Name() string                             { return f.name }
func (f fakeCheck) Run(ctx context.Context, _ *Input) Result { return f.run(ctx) }

func TestRunnerKeepsOrderRecoversPanicsAndTimesOut(t *testing.T) {
	var progress bytes.Buffer
	r := &Runner{
		Timeout: func(name string) time.Duration {
			if name == "slow" {
				return 50 * time.Millisecond
			}
			return time.Hour // a limit that is not reached must not change the result
		},
		Progress: &LineProgress{W: &progress},
	}
	list := []Check{
		fakeCheck{"ok", func(context.Context) Result { return Result{Conclusion: Success, Title: "fine"} }},
		fakeCheck{"boom", func(context.Context) Result { panic("kaput") }},
		fakeCheck{"slow", func(ctx context.Context) Result {
			<-ctx.Done()
			return Result{Conclusion: Success} // a check that ignores its context
		}},
	}
	res := r.Run(context.Background(), &Input{}, list)
	want := []struct {
		check string
		c     Conclusion
	}{{"ok", Success}, {"boom", Failure}, {"slow", TimedOut}}
	for i, w := range want {
		if res[i].Check != w.check || res[i].Conclusion != w.c {
			t.Errorf("result %d = %s %s, want %s %s", i, res[i].Check, res[i].Conclusion, w.check, w.c)
		}
	}
	if !strings.Contains(res[1].Summary, "kaput") {
		t.Errorf("panic summary %q misses the panic value", res[1].Summary)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("want a start and an end line per check, got:\n%s", progress.String())
	}
	for _, name := range []string{"ok", "boom", "slow"} {
		if !strings.Contains(progress.String(), name+" ") {
			t.Errorf("progress misses %s", name)
		}
	}
}

func TestRunnerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := (&Runner{}).Run(ctx, &Input{}, []Check{fakeCheck{"c", func(ctx context.Context) Result {
		return Result{Conclusion: Success}
	}}})
	if res[0].Conclusion != Cancelled {
		t.Fatalf("got %s, want cancelled", res[0].Conclusion)
	}
}
