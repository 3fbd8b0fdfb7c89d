package restore

import (
	"context"
	"testing"

	"github.com/formula-code/template-verify/internal/fixture"
)

// BenchmarkCatalogue runs the whole catalogue with the good test script,
// once with the base fixture built once and copied per scenario (copy),
// and once with a git init and commit per scenario (naive). Compare the
// two ns/op values for the speed-up of the copy.
func BenchmarkCatalogue(b *testing.B) {
	ctx := context.Background()
	in := scriptInput(b, "good.sh")
	step, st := prepareStep(ctx, in, in.Config.Restore, "")
	if st != nil {
		b.Fatal(st.title)
	}
	policy, err := NewPolicy(in.Config.Restore.Patterns)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	baseDir, sha, base, err := prepare(root)
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
			for b.Loop() {
				for _, o := range r.runAll(ctx, r.opts.Catalogue) {
					if o.Verdict != Pass {
						b.Fatalf("%s: %s %v %q", o.Scenario.Name, o.Verdict, o.Err, o.Diffs)
					}
				}
			}
			b.ReportMetric(float64(len(r.opts.Catalogue)), "scenarios/op")
		})
	}
}
