package pytest

import (
	"context"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/examples"
)

// BenchmarkExampleGood runs the whole check on the example's good head:
// the example's suite with Debian's pytest and the five runner scenarios.
// The time includes building the example repository (examples.Build).
func BenchmarkExampleGood(b *testing.B) {
	ctx := context.Background()
	if _, err := findPython(ctx, "", b.TempDir()); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		res := runExampleB(b, ctx, examples.HeadGood)
		if res.Conclusion != checks.Success {
			b.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
		}
	}
}

// BenchmarkRunnerScenarios runs the five scenarios with the example runner,
// without the suite.
func BenchmarkRunnerScenarios(b *testing.B) {
	ctx := context.Background()
	py, err := findPython(ctx, "", b.TempDir())
	if err != nil {
		b.Skip(err)
	}
	spec := specFor(&config.Runner{}, py.Path, renderExampleRunner(b), 0)
	for b.Loop() {
		res, err := runScenarios(ctx, spec, b.TempDir(), scenarios())
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if !r.Passed() {
				b.Fatalf("%s: %v", r.Name, r.Problems)
			}
		}
	}
}
