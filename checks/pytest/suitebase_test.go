package pytest

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
)

// Conftests that stop pytest with exit codes other than 0, 1 and 5 (pytest
// 7: 2 interrupted, 3 internal error, 4 usage error; 7 is a plugin's own).
const (
	badAddopts      = "[pytest]\naddopts = --no-such-option\n"
	internalError3  = "def pytest_collection_modifyitems(items):\n    raise RuntimeError(\"boom\")\n"
	interrupted2    = "import pytest\n\n\ndef pytest_sessionstart(session):\n    pytest.exit(\"stop\", returncode=2)\n"
	ownExitCode7    = "import os\n\n\ndef pytest_sessionfinish(session, exitstatus):\n    os._exit(7)\n"
	headChangesCalc = "def add(a, b):\n    return b + a\n\n\ndef mul(a, b):\n    return a * b\n"
)

// TestEveryExitCodeIsJudgedAtBase: pytest stopping with a code other than
// 0, 1 and 5 fails the PR only when the base does not stop the same way
// (issue 25.6). Without the base run, every row failed.
func TestEveryExitCodeIsJudgedAtBase(t *testing.T) {
	t.Parallel()
	needPython(t)
	cases := []struct {
		name       string
		base, head map[string]string // over calcBase; head also changes src/calc.py
		strict     bool
		want       checks.Conclusion
		level      checks.Level
		title      string // of the exit code finding
		message    string // in its message
		suiteTitle string // in the check's title
	}{
		{name: "usage error at base and head", base: map[string]string{"pytest.ini": badAddopts},
			want: checks.Success, level: checks.LevelWarning, title: "pytest stops with exit code 4 before this change",
			message: "At the base, the same command stops with exit code 4 too", suiteTitle: "1 pytest suite fails before this change"},
		{name: "usage error only at head", head: map[string]string{"pytest.ini": badAddopts},
			want: checks.Failure, level: checks.LevelFailure, title: "pytest stopped with exit code 4",
			message: "At the base, the same command exits with code 1, so this PR causes the failure", suiteTitle: "1 pytest suite fails"},
		{name: "internal error at base and head", base: map[string]string{"tests/conftest.py": internalError3},
			want: checks.Success, level: checks.LevelWarning, title: "pytest stops with exit code 3 before this change"},
		{name: "interrupted at base and head", base: map[string]string{"tests/conftest.py": interrupted2},
			want: checks.Success, level: checks.LevelWarning, title: "pytest stops with exit code 2 before this change"},
		{name: "a plugin's own exit code at base and head", base: map[string]string{"tests/conftest.py": ownExitCode7},
			want: checks.Success, level: checks.LevelWarning, title: "pytest stops with exit code 7 before this change"},
		{name: "internal error at head, another code at base", base: map[string]string{"tests/conftest.py": interrupted2}, head: map[string]string{"tests/conftest.py": internalError3},
			want: checks.Failure, level: checks.LevelFailure, title: "pytest stopped with exit code 3", message: "exits with code 2"},
		{name: "pre_existing: fail", base: map[string]string{"pytest.ini": badAddopts}, strict: true,
			want: checks.Failure, level: checks.LevelFailure, title: "pytest stops with exit code 4 before this change", message: "pre_existing: fail"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := maps.Clone(calcBase)
			maps.Copy(base, tc.base)
			head := map[string]string{"src/calc.py": headChangesCalc}
			maps.Copy(head, tc.head)
			cfg := suiteConfig([]string{"tests/test_calc.py", "tests/test_known.py"}, map[string]string{"PYTHONPATH": "src"})
			if tc.strict {
				cfg.PreExisting = config.PreExistingFail
			}
			res := runCheck(t, makeRepo(t, base, head), cfg)
			if res.Conclusion != tc.want {
				t.Fatalf("conclusion %s, want %s: %s\n%v\n%s", res.Conclusion, tc.want, res.Title, titles(res), res.Summary)
			}
			f, ok := findingsByTitle(res)[tc.title]
			if !ok {
				t.Fatalf("no finding %q: %v", tc.title, titles(res))
			}
			if f.Level != tc.level || !strings.Contains(f.Message, tc.message) {
				t.Errorf("finding %s: %s", f.Level, f.Message)
			}
			if tc.suiteTitle != "" && !strings.HasPrefix(res.Title, tc.suiteTitle) {
				t.Errorf("title %q, want %q", res.Title, tc.suiteTitle)
			}
			// The base run is a figure with the command that reproduces it.
			if !slices.ContainsFunc(res.Figures, func(f checks.Figure) bool {
				return strings.Contains(f.Label, " at base ") && strings.HasPrefix(f.Command, "git worktree add --detach ")
			}) {
				t.Errorf("no base figure: %+v", res.Figures)
			}
		})
	}
}

// TestSuiteFilesAtNeitherSideIsNotRun: a suite whose files are at neither
// the base nor the head is not run (before, pytest's exit code 4 failed
// every PR); some missing files leave the rest to run.
func TestSuiteFilesAtNeitherSideIsNotRun(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, calcBase, map[string]string{"src/calc.py": headChangesCalc})
	res := runCheck(t, dir, suiteConfig([]string{"tests/docker"}, nil))
	if res.Conclusion != checks.NotRun || res.Conclusion.Passed() {
		t.Fatalf("conclusion %s, want not_run: %s %v", res.Conclusion, res.Title, titles(res))
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "unit did not run: its files (tests/docker) are neither at the base nor at head")
	}) {
		t.Errorf("notes %q do not give the reason", res.Notes)
	}
	if len(res.Findings) != 0 || len(res.Figures) != 0 {
		t.Errorf("findings %v figures %+v: pytest ran", titles(res), res.Figures)
	}

	res = runCheck(t, dir, suiteConfig([]string{"tests/test_calc.py", "tests/docker::test_x"}, map[string]string{"PYTHONPATH": "src"}))
	if res.Conclusion != checks.Success {
		t.Fatalf("conclusion %s, want success: %s %v", res.Conclusion, res.Title, titles(res))
	}
	f, ok := findingsByTitle(res)["pytest suite unit: files not found"]
	if !ok || f.Level != checks.LevelNotice || !strings.Contains(f.Message, "tests/docker::test_x is neither at the base nor at head, so the suite runs tests/test_calc.py only") {
		t.Errorf("finding %+v", f)
	}
	if len(res.Figures) != 1 || res.Figures[0].Label != "pytest tests/test_calc.py" || res.Figures[0].Value != "2 passed" {
		t.Errorf("figures %+v", res.Figures)
	}
}

// TestSuiteFilesRemovedByThePRFail: a suite file at the base and not at
// head is removed by the PR: the suite fails without running.
func TestSuiteFilesRemovedByThePRFail(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, calcBase, map[string]string{"tests/test_calc.py": checktest.Deleted})
	res := runCheck(t, dir, suiteConfig([]string{"tests/test_calc.py", "tests/test_imports.py"}, map[string]string{"PYTHONPATH": "src"}))
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s, want failure: %s %v", res.Conclusion, res.Title, titles(res))
	}
	f, ok := findingsByTitle(res)["pytest suite unit: files removed"]
	if !ok || f.Level != checks.LevelFailure || f.Path != "tests/test_calc.py" || !strings.Contains(f.Message, "tests/test_calc.py is at the base and not at head") {
		t.Errorf("finding %+v; all: %v", f, titles(res))
	}
	if !strings.Contains(res.Summary, "The PR removes tests/test_calc.py of the suite.") {
		t.Errorf("summary %q", res.Summary)
	}
}
