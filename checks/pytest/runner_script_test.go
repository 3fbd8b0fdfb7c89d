package pytest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
)

// runnerOutput is the result file of the example runner, in the shape of
// datasmith's runner.
type runnerOutput struct {
	Results struct {
		Summary struct {
			Total int `json:"total"`
		} `json:"summary"`
	} `json:"results"`
	// TestsRan is a key datasmith's runner never writes: it must stay unset.
	TestsRan   *bool `json:"tests_ran"`
	Regression struct {
		Regressed  []string `json:"regressed"`
		NRegressed int      `json:"n_regressed"`
	} `json:"regression"`
	FailingAtBase  []string `json:"failing_at_base"`
	RegressionWide struct {
		Ran       bool     `json:"ran"`
		TimedOut  bool     `json:"timed_out"`
		Folders   []string `json:"folders"`
		Regressed []string `json:"regressed"`
	} `json:"regression_wide"`
}

// runExampleRunner builds a repository from base, applies change to the
// work tree, and runs the rendered example runner in it with env, where
// "{repo}" stands for the repository folder.
func runExampleRunner(t *testing.T, py *python, base, change map[string]string, env ...string) runnerOutput {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	repo := gitx.Repo{Dir: dir}
	for p, c := range base {
		if err := writeFile(dir, p, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		if _, err := repo.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	sha, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range change {
		if err := writeFile(dir, p, c); err != nil {
			t.Fatal(err)
		}
	}
	logs := t.TempDir()
	out := filepath.Join(logs, "test_results.json")
	cmd := exec.Command(py.Path, renderExampleRunner(t), "--base", sha)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1", "T_BENCH_TASK_LOGS_PATH=" + logs}
	for _, e := range env {
		cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "{repo}", dir))
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("runner: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r runnerOutput
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return r
}

var hangProject = map[string]string{
	"pytest.ini":          "[pytest]\n",
	"conftest.py":         fixtureBase["conftest.py"],
	"src/pkg/__init__.py": "",
	"src/pkg/mod.py":      "def v():\n    return 1\n",
	"tests/test_a_break.py": `from pkg import mod


def test_v():
    assert mod.v() == 1
`,
	"tests/test_z_hang.py": `import os
import time


def test_hang():
    if os.environ.get("FC_TEST_HANG"):
        time.sleep(300)
`,
}

// TestExampleRunnerWideLimitKeepsFinishedTests stops the wider check at
// its time limit while a test hangs: the regression found before the hang
// still counts (from the runner's stream plugin, as pytest wrote no JUnit
// file).
//
// The limit is wall time, so on a loaded machine pytest may not even reach
// the breaking test within it. The limit then grows (3 s, 10 s, 30 s, 90 s)
// until the breaking test finished before it: the property holds in any run
// where it did, and a bug that drops finished tests fails all four.
func TestExampleRunnerWideLimitKeepsFinishedTests(t *testing.T) {
	t.Parallel()
	py := needPython(t)
	var r runnerOutput
	for _, limit := range []int{3, 10, 30, 90} {
		r = runExampleRunner(t, py, hangProject, map[string]string{"src/pkg/mod.py": "def v():\n    return 2\n"},
			fmt.Sprintf("FC_WIDE_TESTS_SEC=%d", limit), "FC_TEST_HANG=1")
		if len(r.RegressionWide.Regressed) > 0 {
			break
		}
		t.Logf("wide limit %d s: no test finished before it; trying a longer one", limit)
	}
	if !r.RegressionWide.Ran || !r.RegressionWide.TimedOut {
		t.Errorf("wide check ran=%v timed_out=%v, want both true", r.RegressionWide.Ran, r.RegressionWide.TimedOut)
	}
	want := []string{"tests/test_a_break.py::test_v"}
	if !slices.Equal(r.Regression.Regressed, want) || r.Regression.NRegressed != 1 || !slices.Equal(r.RegressionWide.Regressed, want) {
		t.Errorf("regression %+v, wide %+v; want %v", r.Regression, r.RegressionWide, want)
	}
}

func TestExampleRunnerNoChange(t *testing.T) {
	t.Parallel()
	py := needPython(t)
	r := runExampleRunner(t, py, hangProject, nil)
	if r.TestsRan != nil || r.Results.Summary.Total != 0 || r.Regression.NRegressed != 0 || len(r.Regression.Regressed) != 0 || r.RegressionWide.Ran {
		t.Errorf("no change: %+v", r)
	}
}

// TestExampleRunnerBaseRunImportsBaseCode imitates an editable install: an
// absolute PYTHONPATH points at the agent's src folder. The run at base
// must still import the base's code, or the regression is missed.
func TestExampleRunnerBaseRunImportsBaseCode(t *testing.T) {
	t.Parallel()
	py := needPython(t)
	project := map[string]string{
		"pytest.ini":          "[pytest]\n",
		"src/pkg/__init__.py": "",
		"src/pkg/mod.py":      "def v():\n    return 1\n",
		"tests/test_mod.py":   "from pkg import mod\n\n\ndef test_v():\n    assert mod.v() == 1\n",
	}
	r := runExampleRunner(t, py, project, map[string]string{"src/pkg/mod.py": "def v():\n    return 2\n"}, "PYTHONPATH={repo}/src")
	if want := []string{"tests/test_mod.py::test_v"}; !slices.Equal(r.Regression.Regressed, want) {
		t.Errorf("regressed %v, want %v (failing at base: %v)", r.Regression.Regressed, want, r.FailingAtBase)
	}
}
