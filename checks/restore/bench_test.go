package restore

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fixture"
)

// BenchmarkCatalogue runs the whole catalogue with the good test script,
// once with the base fixture built once and copied per scenario (copy),
// and once with a git init and commit per scenario (naive). Compare the
// two ns/op values for the speed-up of the copy.
func BenchmarkCatalogue(b *testing.B) {
	ctx := context.Background()
	in := scriptInput(b, "good.sh")
	step, st := prepareStep(ctx, in, in.Config.Restore)
	if st != nil {
		b.Fatal(st.title)
	}
	policy, err := NewPolicy(in.Config.Restore.Patterns)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	baseDir, sha, base, err := prepare(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  source
	}{
		{"copy", copySource{baseDir}},
		{"naive", buildSource{fixture.Project()}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := &runner{step: step, policy: policy, base: base, baseSHA: sha, src: c.src, root: b.TempDir(), opts: Options{}.settle()}
			cpu0 := cpuTime()
			for b.Loop() {
				for _, o := range r.runAll(ctx, r.opts.Catalogue) {
					if o.Verdict != Pass {
						b.Fatalf("%s: %s %v %q", o.Scenario.Name, o.Verdict, o.Err, o.Diffs)
					}
				}
			}
			b.ReportMetric(float64(len(r.opts.Catalogue)), "scenarios/op")
			// CPU time of this process and its children (git, bash, bwrap)
			// depends less on other load of the machine than wall time.
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the user and system time of this process and its waited-for
// children.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
