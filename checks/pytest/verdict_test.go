package pytest

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// TestRunnerVerdictsJudgeTheChange runs the runner scenarios on a base and
// a head runner (a runner that gets weaker: TestWeakRunnerMissesTheWiderCheck;
// the example runner passes every scenario: the last case here). The runner contract is datasmith's (the config defaults:
// no --out, $T_BENCH_TASK_LOGS_PATH/test_results.json, no tests_ran key),
// and a scenario that the base's runner fails the same way is "fails
// before this change", not a failure of the PR.
func TestRunnerVerdictsJudgeTheChange(t *testing.T) {
	t.Parallel()
	needPython(t)
	example, err := os.ReadFile(exampleRunner)
	if err != nil {
		t.Fatal(err)
	}
	weakData, err := os.ReadFile("testdata/weak_runner.py")
	if err != nil {
		t.Fatal(err)
	}
	weak := string(weakData)
	reworded := strings.Replace(weak, "import json", "import json  # the result file", 1)
	strict := func(c *config.Config) { c.PreExisting = config.PreExistingFail }
	cases := []struct {
		name       string
		base, head map[string]string
		baseCfg    func(*config.Config)
		want       checks.Conclusion
		title      string
		verdicts   map[string]string // scenario -> verdict prefix
		atBase     map[string]string // scenario -> base column
		level      checks.Level      // of the finding of unmapped-break
		finding    string            // it holds this
		noTable    bool              // no scenario runs
	}{
		{
			// The weak runner writes datasmith's shape: before the fix no
			// scenario could read it (tests_ran, --out).
			name: "datasmith's result shape, the base's weak runner fails the same way",
			base: map[string]string{"tmpl/pytest_runner.py": weak}, head: map[string]string{"tmpl/pytest_runner.py": reworded},
			want:     checks.Success,
			title:    "The runner passes 3 of 5 scenarios; 2 fail before this change",
			verdicts: map[string]string{"unmapped-break": "fails before this change: the runner did not report tests/test_other.py::test_y", "name-mapped-break": "pass"},
			atBase:   map[string]string{"unmapped-break": "fail", "name-mapped-break": "not run"},
			level:    checks.LevelWarning, finding: "The base's runner fails it the same way",
		},
		{
			// Nothing can fail the PR, so no scenario runs.
			name: "the same runner: no scenario runs",
			base: map[string]string{"tmpl/pytest_runner.py": weak}, head: map[string]string{"tmpl/notes.txt": "a change beside the runner\n"},
			want:    checks.Skipped,
			title:   "The runner did not change and no pytest suite matches the changed files",
			noTable: true,
		},
		{
			// With pre_existing: fail a failure of the base's runner fails
			// the PR, so the scenarios run.
			name: "the same runner, pre_existing: fail at the base",
			base: map[string]string{"tmpl/pytest_runner.py": weak}, head: map[string]string{"tmpl/notes.txt": "a change beside the runner\n"}, baseCfg: strict,
			want:     checks.Failure,
			verdicts: map[string]string{"unmapped-break": "fails before this change"},
			atBase:   map[string]string{"unmapped-break": "same runner"},
			level:    checks.LevelFailure, finding: "The runner and its settings are the same at base and head",
		},
		{
			name: "pre_existing: fail at the base",
			base: map[string]string{"tmpl/pytest_runner.py": weak}, head: map[string]string{"tmpl/pytest_runner.py": reworded}, baseCfg: strict,
			want:     checks.Failure,
			verdicts: map[string]string{"unmapped-break": "fails before this change"},
			atBase:   map[string]string{"unmapped-break": "fail"},
			level:    checks.LevelFailure, finding: "The base's runner fails it the same way",
		},
		{
			name: "the example runner writes datasmith's shape and passes",
			base: map[string]string{"tmpl/pytest_runner.py": weak}, head: map[string]string{"tmpl/pytest_runner.py": string(example)},
			want:     checks.Success,
			title:    "The runner passes 5 of 5 scenarios",
			verdicts: map[string]string{"unmapped-break": "pass", "import-break": "pass", "hidden-break": "pass", "flaky-once": "pass"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := makeRepo(t, c.base, c.head)
			cfg, baseCfg := runnerConfig(), runnerConfig()
			if c.baseCfg != nil {
				c.baseCfg(baseCfg)
			}
			in := checktest.Input(t, gitx.Repo{Dir: dir}, checktest.Base, checktest.Head, cfg, baseCfg)
			res := New().Run(context.Background(), in)
			if res.Conclusion != c.want {
				t.Errorf("conclusion %s, want %s: %s", res.Conclusion, c.want, res.Title)
			}
			if c.title != "" && res.Title != c.title {
				t.Errorf("title %q, want %q", res.Title, c.title)
			}
			if c.noTable {
				if len(res.Tables) != 0 || !strings.Contains(res.Summary, "renders to the same bytes at base and head") {
					t.Errorf("no scenario should run: tables %+v; summary %q", res.Tables, res.Summary)
				}
				return
			}
			if len(res.Tables) != 1 {
				t.Fatalf("tables %+v; findings %+v", res.Tables, res.Findings)
			}
			col := map[string]int{}
			for i, h := range res.Tables[0].Header {
				col[h] = i
			}
			if _, ok := col["At base"]; ok != (c.atBase != nil) {
				t.Errorf("header %q: a base column is wanted: %v", res.Tables[0].Header, c.atBase != nil)
			}
			for _, row := range res.Tables[0].Rows {
				if w, ok := c.verdicts[row[0]]; ok && !strings.HasPrefix(row[col["Verdict"]], w) {
					t.Errorf("%s: verdict %q, want %q...", row[0], row[col["Verdict"]], w)
				}
				if w, ok := c.atBase[row[0]]; ok && row[col["At base"]] != w {
					t.Errorf("%s: at base %q, want %q", row[0], row[col["At base"]], w)
				}
			}
			if c.finding != "" && !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
				return f.Level == c.level && strings.Contains(f.Title, "unmapped-break") && strings.Contains(f.Message, c.finding)
			}) {
				t.Errorf("no %s finding on unmapped-break holds %q: %+v", c.level, c.finding, res.Findings)
			}
		})
	}
}
