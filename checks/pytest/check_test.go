package pytest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// calcBase is a small project whose tests pass at base, except
// test_known_bad.
var calcBase = map[string]string{
	"pytest.ini":  "[pytest]\n",
	"src/calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
	"tests/test_calc.py": `from calc import add


def test_add():
    assert add(2, 3) == 5


def test_add_zero():
    assert add(0, 0) == 0
`,
	"tests/test_known.py": `def test_known_bad():
    assert 1 == 2, "broken before the change"
`,
	"tests/test_imports.py": `from calc import mul


def test_mul():
    assert mul(2, 3) == 6
`,
	"tests/test_flaky.py": `import os


def test_flaky():
    marker = os.path.join(os.environ["HOME"], "flaky-marker")
    if not os.path.exists(marker):
        open(marker, "w").close()
        raise AssertionError("first run fails")
`,
}

func findingsByTitle(res checks.Result) map[string]checks.Finding {
	out := map[string]checks.Finding{}
	for _, f := range res.Findings {
		out[f.Title] = f
	}
	return out
}

func TestSuiteRegressions(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, calcBase, map[string]string{
		// add breaks; mul is renamed, so tests/test_imports.py does not import.
		"src/calc.py": "def add(a, b):\n    return a + b + (1 if a == 2 else 0)\n\n\ndef times(a, b):\n    return a * b\n",
		"tests/test_new.py": `def test_new_fails():
    assert False, "new and broken"
`,
	})
	res := runCheck(t, dir, suiteConfig([]string{"tests"}, map[string]string{"PYTHONPATH": "src"}))
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s, want failure; title %q\n%s", res.Conclusion, res.Title, res.Summary)
	}
	got := findingsByTitle(res)
	want := []struct {
		title string
		level checks.Level
		path  string
		line  int
	}{
		{"Regression: tests/test_calc.py::test_add", checks.LevelFailure, "tests/test_calc.py", 4},
		{"Regression: test file does not import: tests/test_imports.py", checks.LevelFailure, "tests/test_imports.py", 1},
		{"Failing before the change: tests/test_known.py::test_known_bad", checks.LevelWarning, "tests/test_known.py", 1},
		{"Flaky test: tests/test_flaky.py::test_flaky", checks.LevelNotice, "tests/test_flaky.py", 4},
		{"New test fails: tests/test_new.py::test_new_fails", checks.LevelFailure, "tests/test_new.py", 1},
	}
	for _, w := range want {
		f, ok := got[w.title]
		if !ok {
			t.Errorf("no finding %q; findings: %v", w.title, titles(res))
			continue
		}
		if f.Level != w.level || f.Path != w.path || f.Line != w.line {
			t.Errorf("%s: level %s path %s line %d, want %s %s %d", w.title, f.Level, f.Path, f.Line, w.level, w.path, w.line)
		}
	}
	if len(res.Findings) != len(want) {
		t.Errorf("%d findings, want %d: %v", len(res.Findings), len(want), titles(res))
	}
	// The annotation of the regression carries the E lines of its traceback.
	if m := got["Regression: tests/test_calc.py::test_add"].Message; !strings.Contains(m, "passes at the base") || !strings.Contains(m, "assert 6 == 5") {
		t.Errorf("regression message %q lacks the sentence or the log context", m)
	}
	if m := got["Regression: test file does not import: tests/test_imports.py"].Message; !strings.Contains(m, "ImportError: cannot import name 'mul'") {
		t.Errorf("import regression message %q lacks the import error", m)
	}
	// Figures: the head run, the second run, the base run.
	if len(res.Figures) != 3 {
		t.Fatalf("figures %+v, want 3", res.Figures)
	}
	head := res.Figures[0]
	if head.Label != "pytest tests" || head.Value != "4 failed, 1 passed, 1 error" {
		t.Errorf("head figure %+v", head)
	}
	if !strings.HasPrefix(head.Command, "PYTHONPATH=src ") || !strings.Contains(head.Command, " -m pytest -p no:cacheprovider --continue-on-collection-errors tests") {
		t.Errorf("head command %q", head.Command)
	}
	if second := res.Figures[1]; !strings.Contains(second.Label, "second run of 5 failed tests") || second.Value != "3 failed, 1 passed, 1 error" {
		t.Errorf("second figure %+v", second)
	}
	if base := res.Figures[2]; !strings.Contains(base.Label, " at base ") || !strings.HasPrefix(base.Command, "git worktree add --detach ") {
		t.Errorf("base figure %+v", base)
	}
	if !strings.Contains(res.Title, "3 tests fail at head") {
		t.Errorf("title %q", res.Title)
	}
}

func titles(res checks.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Title)
	}
	return out
}

func TestSuiteFailingAtBaseIsNotARegression(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, calcBase, map[string]string{
		"src/calc.py": calcBase["src/calc.py"] + "\n\ndef sub(a, b):\n    return a - b\n",
	})
	res := runCheck(t, dir, suiteConfig([]string{"tests/test_calc.py", "tests/test_known.py"}, map[string]string{"PYTHONPATH": "src"}))
	if res.Conclusion != checks.Success {
		t.Fatalf("conclusion %s, want success: %s\n%s\n%v", res.Conclusion, res.Title, res.Summary, titles(res))
	}
	if len(res.Findings) != 1 || res.Findings[0].Level != checks.LevelWarning {
		t.Errorf("findings %v, want one warning", titles(res))
	}
	if !strings.Contains(res.Summary, "also fail at the base") {
		t.Errorf("summary %q", res.Summary)
	}
}

func TestNoTestsCollectedIsNotRun(t *testing.T) {
	t.Parallel()
	needPython(t)
	base := map[string]string{"pytest.ini": "[pytest]\n", "src/a.py": "A = 1\n", "tests/test_empty.py": "# no tests yet\n"}
	dir := makeRepo(t, base, map[string]string{"src/a.py": "A = 2\n"})
	res := runCheck(t, dir, suiteConfig([]string{"tests/test_empty.py"}, nil))
	if res.Conclusion != checks.NotRun {
		t.Fatalf("conclusion %s, want not_run: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "no tests (exit code 5)") }) {
		t.Errorf("notes %q do not give the reason", res.Notes)
	}
	if len(res.Figures) != 1 || res.Figures[0].Value != "no tests collected" {
		t.Errorf("figures %+v", res.Figures)
	}
}

func TestMissingPythonIsNotRun(t *testing.T) {
	t.Parallel()
	dir := makeRepo(t, calcBase, map[string]string{"src/calc.py": "X = 1\n"})
	cfg := suiteConfig([]string{"tests"}, nil)
	cfg.Pytest.Python = "/nonexistent/bin/python3"
	res := runCheck(t, dir, cfg)
	if res.Conclusion != checks.NotRun || res.Conclusion.Passed() {
		t.Fatalf("conclusion %s, want not_run", res.Conclusion)
	}
	if res.Title != "No python with pytest" || !strings.Contains(strings.Join(res.Notes, " "), "/nonexistent/bin/python3") {
		t.Errorf("title %q notes %q", res.Title, res.Notes)
	}
}

func TestPythonWithoutPytestIsNotRun(t *testing.T) {
	t.Parallel()
	dir := makeRepo(t, calcBase, map[string]string{"src/calc.py": "X = 1\n"})
	cfg := suiteConfig([]string{"tests"}, nil)
	cfg.Pytest.Python = "/bin/false" // runs, but cannot import anything
	res := runCheck(t, dir, cfg)
	if res.Conclusion != checks.NotRun {
		t.Fatalf("conclusion %s, want not_run", res.Conclusion)
	}
	if !strings.Contains(strings.Join(res.Notes, " "), "/bin/false: cannot import pytest") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestHangingSuiteIsKilled(t *testing.T) {
	t.Parallel()
	needPython(t)
	base := map[string]string{
		"pytest.ini": "[pytest]\n",
		"src/a.py":   "A = 1\n",
		"tests/test_hang.py": `import subprocess
import time


def test_hang():
    subprocess.Popen(["sleep", "300"])
    time.sleep(300)
`,
	}
	dir := makeRepo(t, base, map[string]string{"src/a.py": "A = 2\n"})
	cfg := suiteConfig([]string{"tests"}, nil)
	cfg.Pytest.Suites[0].Timeout = config.Duration{Duration: 3 * time.Second}
	start := time.Now()
	res := runCheck(t, dir, cfg)
	if res.Conclusion != checks.TimedOut || !res.Conclusion.Failed() {
		t.Fatalf("conclusion %s, want timed_out: %s", res.Conclusion, res.Title)
	}
	if len(res.Findings) != 1 || res.Findings[0].Level != checks.LevelFailure || !strings.Contains(res.Findings[0].Message, "time limit of 3s") {
		t.Errorf("findings %+v", res.Findings)
	}
	t.Logf("the check returned after %s", time.Since(start).Round(time.Millisecond))
}

func TestNoTriggerIsSkipped(t *testing.T) {
	t.Parallel()
	dir := makeRepo(t, calcBase, map[string]string{"README.md": "docs\n"})
	res := runCheck(t, dir, suiteConfig([]string{"tests"}, nil))
	if res.Conclusion != checks.Skipped || res.Conclusion.Passed() {
		t.Fatalf("conclusion %s, want skipped", res.Conclusion)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "unit did not run") {
		t.Errorf("notes %q", res.Notes)
	}
}

// TestNoPytestBlockIsNotRun: run without a pytest block (verify never
// does: the config turning the check off is its decision, see
// verify.TestConfigTurnsTheRealCheckOff), the check is not run, never
// passed, whatever the base says.
func TestNoPytestBlockIsNotRun(t *testing.T) {
	t.Parallel()
	dir := makeRepo(t, calcBase, map[string]string{"src/calc.py": "X = 1\n"})
	res := runCheck(t, dir, &config.Config{Version: 1})
	if res.Conclusion != checks.NotRun {
		t.Fatalf("conclusion %s, want not_run", res.Conclusion)
	}
}
