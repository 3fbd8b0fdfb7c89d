package pytest

import (
	"context"
	"strings"
	"testing"
)

const exampleCommand = "{python} {runner} --base {base} --out {result}"

func TestExampleRunnerPassesEveryScenario(t *testing.T) {
	py := needPython(t)
	spec := runnerSpec{Python: py.Path, Runner: renderExampleRunner(t), Command: exampleCommand, Result: "test_results.json"}
	results, err := runScenarios(context.Background(), spec, t.TempDir(), scenarios())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 5 {
		t.Fatalf("%d scenarios, want 5", len(results))
	}
	for _, r := range results {
		if !r.Passed() {
			t.Errorf("%s: %s\n%s", r.Name, strings.Join(r.Problems, "; "), r.Details)
		}
	}
}

func TestWeakRunnerMissesTheWiderCheck(t *testing.T) {
	py := needPython(t)
	spec := runnerSpec{Python: py.Path, Runner: "testdata/weak_runner.py", Command: exampleCommand, Result: "test_results.json"}
	spec.Runner = mustAbs(t, spec.Runner)
	results, err := runScenarios(context.Background(), spec, t.TempDir(), scenarios())
	if err != nil {
		t.Fatal(err)
	}
	verdict := map[string]scenarioResult{}
	for _, r := range results {
		verdict[r.Name] = r
	}
	un := verdict["unmapped-break"]
	if un.Passed() {
		t.Fatalf("unmapped-break passes with the weak runner")
	}
	if got := strings.Join(un.Problems, "; "); !strings.Contains(got, "the runner did not report tests/test_other.py::test_y: no wider check?") {
		t.Errorf("unmapped-break problems = %q, want the missing wider check named", got)
	}
	if imp := verdict["import-break"]; imp.Passed() || !strings.Contains(strings.Join(imp.Problems, "; "), "tests/test_beta.py") {
		t.Errorf("import-break with the weak runner: %q", imp.Problems)
	}
	// The weak runner maps names, runs again and runs at base: those
	// scenarios pass.
	for _, name := range []string{"name-mapped-break", "hidden-break", "flaky-once"} {
		if r := verdict[name]; !r.Passed() {
			t.Errorf("%s fails with the weak runner: %q\n%s", name, r.Problems, r.Details)
		}
	}
}
