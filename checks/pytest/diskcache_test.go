package pytest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/resultcache"
)

// TestCacheFolderSkipsTheSecondRun runs the check three times with a cache
// folder, each time with an empty memory (as a new process has): the
// second run of the same PR starts no pytest and no runner, and a PR whose
// runner and tree differ runs both again. Runs are counted by what pytest
// and the runner leave on disk (JUnit files, result files), not by a
// counter in the code.
func TestCacheFolderSkipsTheSecondRun(t *testing.T) {
	needPython(t)
	example, err := os.ReadFile(exampleRunner)
	if err != nil {
		t.Fatal(err)
	}
	ctx := resultcache.WithRoot(context.Background(), t.TempDir())
	old := scenarioRuns
	t.Cleanup(func() { scenarioRuns = old })

	base := map[string]string{
		"pytest.ini":            "[pytest]\n",
		"src/calc.py":           "def add(a, b):\n    return a + b\n",
		"tests/test_calc.py":    "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
		"tmpl/pytest_runner.py": "# an older runner\n" + string(example),
	}
	cfg := runnerConfig()
	cfg.Pytest.Suites = []config.Suite{{Name: "unit", Files: []string{"tests"}, Triggers: []string{"src/**"}, Env: map[string]string{"PYTHONPATH": "src"}}}
	pr := func(head map[string]string) *checks.Input {
		return checktest.Input(t, gitx.Repo{Dir: makeRepo(t, base, head)}, checktest.Base, checktest.Head, cfg, cfg)
	}
	same := map[string]string{"src/extra.py": "X = 1\n", "tmpl/pytest_runner.py": string(example)}
	changed := map[string]string{"src/extra.py": "X = 2\n", "tmpl/pytest_runner.py": string(example) + "# changed\n"}
	runs := []struct {
		name                 string
		in                   *checks.Input
		wantJUnit, wantScens bool
		wantNotes            []string
	}{
		{"first run", pr(same), true, true, nil},
		{"the same PR again", pr(same), false, false, []string{
			"The pytest suite unit did not run again. It passed in an earlier run with the same head and base trees",
			"The 5 runner scenarios did not run again. They all passed in an earlier run",
		}},
		{"another runner and tree", pr(changed), true, true, nil},
	}
	var first checks.Result
	for i, r := range runs {
		scenarioRuns = newScenarioCache(runScenarios, time.Now)
		res := New().Run(ctx, r.in)
		if res.Conclusion != checks.Success || len(res.Tables) != 1 {
			t.Fatalf("%s: conclusion %s: %s\n%s\nfindings %+v", r.name, res.Conclusion, res.Title, res.Summary, res.Findings)
		}
		junits := glob(t, r.in.WorkDir, "pytest-*/junit-*/junit.xml")
		results := glob(t, r.in.WorkDir, "pytest-*/runner/scenarios/s*/logs/*.json")
		t.Logf("%s: %d JUnit files, %d runner result files", r.name, len(junits), len(results))
		if (len(junits) > 0) != r.wantJUnit {
			t.Errorf("%s: %d JUnit files of pytest, want some: %v", r.name, len(junits), r.wantJUnit)
		}
		if (len(results) > 0) != r.wantScens {
			t.Errorf("%s: %d result files of the runner, want some: %v", r.name, len(results), r.wantScens)
		}
		for _, n := range r.wantNotes {
			if !slices.ContainsFunc(res.Notes, func(s string) bool { return strings.HasPrefix(s, n) }) {
				t.Errorf("%s: no note %q in %q", r.name, n, res.Notes)
			}
		}
		switch i {
		case 0:
			first = res
		case 1:
			if !slices.Equal(res.Figures, first.Figures) || res.Title != first.Title || !slices.EqualFunc(res.Tables[0].Rows, first.Tables[0].Rows, slices.Equal) {
				t.Errorf("the reused result differs:\n%+v\n%+v", res, first)
			}
		}
	}
}

func glob(t *testing.T, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
