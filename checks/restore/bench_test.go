package restore

import (
	"context"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// BenchmarkCheck runs the whole check as the demo runs it (the good
// script: the catalogue and 10 random sets) and reports, from the same
// runs, where the time goes: the harness's own work per scenario (copying
// the fixture, the edits, reading the trees before and after, the model)
// against the step's run per scenario, the harness's share of a
// scenario, and the setup of a check run (fixture and render). It runs
// with the sandbox (bubblewrap where it works) and without, so that one
// run shows what the sandbox costs a scenario.
func BenchmarkCheck(b *testing.B) {
	for _, noSandbox := range []bool{false, true} {
		name := "sandbox"
		if noSandbox {
			name = "no-sandbox"
		}
		b.Run(name, func(b *testing.B) { benchmarkCheck(b, Options{NoSandbox: noSandbox}) })
	}
}

func benchmarkCheck(b *testing.B, opts Options) {
	ctx := context.Background()
	in := scriptInput(b, "good.sh")
	c := New().WithOptions(opts)
	c.phases = &phases{}
	for b.Loop() {
		if res := c.Run(ctx, in); res.Conclusion != checks.Success {
			b.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
		}
	}
	p := c.phases
	runs := float64(p.runs.Load())
	harness, step := float64(p.harness.Load())/runs/1e6, float64(p.step.Load())/runs/1e6
	b.ReportMetric(harness, "harness-ms/scenario")
	b.ReportMetric(step, "step-ms/scenario")
	b.ReportMetric(100*harness/(harness+step), "harness-%")
	b.ReportMetric(float64(p.setup.Load())/float64(b.N)/1e6, "setup-ms/op")
	b.ReportMetric(runs/float64(b.N), "scenarios/op")
}

// BenchmarkProbe times one policy probe (every file of the fixture edited,
// one run of the step) against one no-change scenario of the same step, in
// the same loop: what a probe costs in scenarios.
func BenchmarkProbe(b *testing.B) {
	ctx := context.Background()
	in := scriptInput(b, "good.sh")
	c := New()
	r, cleanup, st := c.setup(ctx, in)
	if st != nil {
		b.Fatal(st.title)
	}
	defer cleanup()
	noChange := scenarios(b, "no-change")[0]
	var probe, scenario time.Duration
	paths := 0
	for b.Loop() {
		start := time.Now()
		p := r.learnPolicy(ctx)
		probe += time.Since(start)
		if p.Err != "" {
			b.Fatalf("probe: %s", p.Err)
		}
		paths = len(p.Learned)
		start = time.Now()
		if o := r.run(ctx, noChange); o.Verdict != Pass {
			b.Fatalf("no-change: %s %q", o.Verdict, o.Diffs)
		}
		scenario += time.Since(start)
	}
	b.ReportMetric(float64(probe.Milliseconds())/float64(b.N), "probe-ms")
	b.ReportMetric(float64(scenario.Milliseconds())/float64(b.N), "no-change-ms")
	b.ReportMetric(float64(paths), "probed-paths")
}
