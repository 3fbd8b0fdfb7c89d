package pytest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// runnerConfig is a config whose runner template is tmpl/pytest_runner.py.
func runnerConfig() *config.Config {
	return &config.Config{Version: 1, Source: "test",
		Groups: []config.Group{{
			Name: "t", Root: "tmpl",
			Jinja:     config.Jinja{StrictUndefined: true, KeepTrailingNewline: true},
			Vars:      map[string]any{"task_id": "demo-1"},
			Templates: []config.Template{{Path: "**"}},
		}},
		Pytest: &config.Pytest{Runner: &config.Runner{Template: "t:pytest_runner.py"}},
	}
}

// TestWeakRunnerMissesTheWiderCheck runs the check on a repository whose
// head replaces the example runner with a runner that only maps names: a
// runner that gets weaker fails, and the base's runner passes what fails.
func TestWeakRunnerMissesTheWiderCheck(t *testing.T) {
	t.Parallel()
	needPython(t)
	example, err := os.ReadFile(exampleRunner)
	if err != nil {
		t.Fatal(err)
	}
	weak, err := os.ReadFile("testdata/weak_runner.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := makeRepo(t, map[string]string{"tmpl/pytest_runner.py": string(example)}, map[string]string{"tmpl/pytest_runner.py": string(weak)})
	res := runCheck(t, dir, runnerConfig())
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s, want failure: %s", res.Conclusion, res.Title)
	}
	if len(res.Tables) != 1 || res.Tables[0].Title != ScenarioTable {
		t.Fatalf("tables %+v", res.Tables)
	}
	rows := map[string][]string{}
	for _, r := range res.Tables[0].Rows {
		rows[r[0]] = r
	}
	// The base's runner (the example's) passes the scenarios that fail.
	if h := res.Tables[0].Header; !slices.Equal(h, []string{"Scenario", "Verdict", "At base", "Regressions"}) {
		t.Fatalf("header %q", h)
	}
	for _, name := range []string{"unmapped-break", "import-break"} {
		if got := rows[name][2]; got != "pass" {
			t.Errorf("%s at base %q, want pass", name, got)
		}
	}
	if v := rows["unmapped-break"][1]; !strings.Contains(v, "fail: the runner did not report tests/test_other.py::test_y: no wider check?") {
		t.Errorf("unmapped-break verdict %q", v)
	}
	if v := rows["import-break"][1]; !strings.Contains(v, "the runner did not report tests/test_beta.py: a test file that does not import is not counted") {
		t.Errorf("import-break verdict %q", v)
	}
	// The weak runner maps names, runs again and runs at base.
	for _, name := range []string{"name-mapped-break", "hidden-break", "flaky-once"} {
		if v := rows[name][1]; v != "pass" {
			t.Errorf("%s verdict %q, want pass", name, v)
		}
	}
	if got := rows["name-mapped-break"][3]; got != "tests/test_alpha.py::test_x" {
		t.Errorf("name-mapped-break regressions %q", got)
	}
	f := findingsByTitle(res)["Runner scenario unmapped-break fails"]
	if f.Path != "tmpl/pytest_runner.py" || f.Level != checks.LevelFailure || !strings.Contains(f.Message, "no wider check?") ||
		!strings.Contains(f.Message, "The base's runner passes it: this change causes the failure.") {
		t.Errorf("finding %+v", f)
	}
	if res.Title != "The runner fails 2 of 5 scenarios" {
		t.Errorf("title %q", res.Title)
	}
}

func TestRunnerTemplateRenderError(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, map[string]string{"tmpl/pytest_runner.py": "print(1)\n"},
		map[string]string{"tmpl/pytest_runner.py": "print(1)\nX = '{{ missing_var }}'\n"})
	res := runCheck(t, dir, runnerConfig())
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s, want failure", res.Conclusion)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("findings %+v", res.Findings)
	}
	f := res.Findings[0]
	if f.Path != "tmpl/pytest_runner.py" || f.Line != 2 || !strings.Contains(f.Message, "missing_var") {
		t.Errorf("finding %+v", f)
	}
}

func TestRunnerNotTriggered(t *testing.T) {
	t.Parallel()
	dir := makeRepo(t, map[string]string{"tmpl/pytest_runner.py": "print(1)\n"}, map[string]string{"docs/x.md": "x\n"})
	res := runCheck(t, dir, runnerConfig())
	if res.Conclusion != checks.Skipped {
		t.Fatalf("conclusion %s, want skipped", res.Conclusion)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "no file under tmpl") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestBadRunnerCommand(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, map[string]string{"tmpl/pytest_runner.py": "print(1)\n"}, map[string]string{"tmpl/pytest_runner.py": "print(2)\n"})
	cfg := runnerConfig()
	cfg.Pytest.Runner.Command = "{pyhton} {runner}"
	res := runCheck(t, dir, cfg)
	if res.Conclusion != checks.Failure || len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "unknown placeholder {pyhton}") {
		t.Errorf("conclusion %s findings %+v", res.Conclusion, res.Findings)
	}
}
