package examples

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/gitx"
)

// The restore step and the absolute paths it uses, as the config names them.
const (
	restoreHeader = "# ── Restore protected paths"
	captureHeader = "# ── Capture patch"
	// renderedBase is base_commit in the example config; the scenarios
	// replace it by the fixture's base commit.
	renderedBase  = "0123456789abcdef0123456789abcdef01234567"
	sectionPrefix = "# ── "
	pathRepo      = "/workspace/repo"
	pathBaseline  = "/opt/fc_baseline_sha"
	pathLogs      = "/logs/artifacts"
	reportName    = "protected_restore.json"
)

// restoreRun is what production runs up to the end of the restore step,
// without the profile files: the shell options, the patch capture (which
// sets the base commit $_fc_patch_base, falling back to the rendered
// base_commit) and the restore step.
func restoreRun(t *testing.T, script string) string {
	t.Helper()
	return "set -euo pipefail\n" + sectionOf(t, script, captureHeader) + sectionOf(t, script, restoreHeader)
}

// sectionOf returns the lines from the header line to the line before the
// next header.
func sectionOf(t *testing.T, script, header string) string {
	t.Helper()
	var out []string
	inside := false
	for _, line := range strings.SplitAfter(script, "\n") {
		if strings.HasPrefix(line, sectionPrefix) {
			if inside {
				break
			}
			inside = strings.HasPrefix(line, header)
		}
		if inside {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no line starts with %q", header)
	}
	return strings.Join(out, "")
}

// restoreReport is protected_restore.json.
type restoreReport struct {
	Ran       bool     `json:"ran"`
	Base      string   `json:"base,omitempty"`
	Discarded []string `json:"discarded,omitempty"`
	Remaining []string `json:"remaining,omitempty"`
	Error     string   `json:"error,omitempty"`
}

var fixtureBase = map[string]string{
	"conftest.py":         "# root conftest\n",
	"tests/test_a.py":     "def test_a():\n    assert True\n",
	"src/x.py":            "def slow():\n    return sorted(sorted([3, 1, 2]))\n",
	"benchmarks/bench.py": "def time_slow():\n    pass\n",
	".github/ci.yml":      "on: push\n",
}

// agentEdits are the agent's changes: a committed edit of a test file, then
// an edited conftest.py, an added test file, an added benchmark whose name
// has a space, and the fix in src/x.py.
var (
	committedEdits = map[string]string{"tests/test_a.py": "def test_a():\n    pass\n"}
	worktreeEdits  = map[string]string{
		"conftest.py":          "import pytest\n",
		"tests/test_new.py":    "def test_new():\n    pass\n",
		"benchmarks/sp ace.py": "# added\n",
		"src/x.py":             "def slow():\n    return [1, 2, 3]\n",
	}
	fixedSrc = map[string]string{"src/x.py": worktreeEdits["src/x.py"]}
)

// restoreScenario is one fixture run: the baseline file is there or not.
type restoreScenario struct {
	name       string
	noBaseline bool
}

var restoreScenarios = []restoreScenario{{name: "tamper"}, {name: "no-baseline", noBaseline: true}}

// runRestore builds the fixture, runs the mapped restore step in it and
// returns the differences from the expected tree and report.
func runRestore(t *testing.T, section string, sc restoreScenario) []string {
	t.Helper()
	ctx := context.Background()
	tmp := t.TempDir()
	repoDir := filepath.Join(tmp, "repo")
	writeFiles(t, repoDir, fixtureBase)
	repo := gitx.Repo{Dir: repoDir}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		if _, err := repo.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	base, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, repoDir, committedEdits)
	if _, err := repo.Run(ctx, "commit", "-q", "-am", "agent commit"); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, repoDir, worktreeEdits)
	baseline := filepath.Join(tmp, "fc_baseline_sha")
	if !sc.noBaseline {
		if err := os.WriteFile(baseline, []byte(base+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logs := filepath.Join(tmp, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil { // test.sh makes it before these sections
		t.Fatal(err)
	}
	script := strings.NewReplacer(pathRepo, repoDir, pathBaseline, baseline, pathLogs, logs, renderedBase, base).Replace(section)
	runCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "bash", "-c", script)
	cmd.Env = gitx.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: restore step: %v\n%s", sc.name, err, out)
	}

	want := maps.Clone(fixtureBase)
	wantReport := restoreReport{Ran: true, Base: base, Discarded: []string{"benchmarks/sp ace.py", "conftest.py", "tests/test_a.py", "tests/test_new.py"}, Remaining: []string{}}
	maps.Copy(want, fixedSrc)
	// Without the baseline file the step falls back to the rendered
	// base_commit, here the fixture's base: the same restore.
	var diffs []string
	got := readFiles(t, repoDir)
	for _, p := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, p+": missing")
		case g != want[p]:
			diffs = append(diffs, p+": content differs")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, p+": still present")
		}
	}
	data, err := os.ReadFile(filepath.Join(logs, reportName))
	if err != nil {
		return append(diffs, "no report: "+err.Error())
	}
	var report restoreReport
	if err := json.Unmarshal(data, &report); err != nil {
		return append(diffs, "report is not JSON: "+err.Error())
	}
	if !reflect.DeepEqual(report, wantReport) {
		diffs = append(diffs, "report "+strings.TrimSpace(string(data)))
	}
	return diffs
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readFiles reads every file of the work tree except .git.
func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRestoreStep runs the restore step of the good head and of each bad
// restore head on the fixture. The good head passes both scenarios; each
// bad head fails exactly the scenario that shows its bug.
func TestRestoreStep(t *testing.T) {
	t.Parallel()
	needPython(t, "jinja2")
	b := example(t)
	tests := []struct {
		head string
		fail []string // the scenarios that must fail
	}{
		{HeadGood, nil},
		// With the base_commit fallback both scenarios run the same restore.
		{HeadRestoreFromHead, []string{"tamper", "no-baseline"}},   // misses the committed edit of tests/test_a.py
		{HeadRestoreSpaces, []string{"tamper", "no-baseline"}},     // mangles "benchmarks/sp ace.py"
		{HeadRestoreKeepsAdded, []string{"tamper", "no-baseline"}}, // keeps tests/test_new.py
		{HeadRestoreNoBaseline, []string{"no-baseline"}},           // restores against HEAD, misses the committed edit
	}
	for _, tc := range tests {
		t.Run(tc.head, func(t *testing.T) {
			t.Parallel()
			dir := export(t, b, b.Heads[tc.head])
			results := renderAll(t, dir, configAt(t, dir))
			res, ok := results["harbor:tests/test.sh[rounds=5,run_pytest=true]"]
			if !ok || !res.OK {
				t.Fatalf("render of test.sh: %+v", res)
			}
			section := restoreRun(t, res.Out)
			for _, sc := range restoreScenarios {
				diffs := runRestore(t, section, sc)
				switch {
				case slices.Contains(tc.fail, sc.name) && len(diffs) == 0:
					t.Errorf("scenario %s passes, want a failure", sc.name)
				case !slices.Contains(tc.fail, sc.name) && len(diffs) > 0:
					t.Errorf("scenario %s fails:\n  %s", sc.name, strings.Join(diffs, "\n  "))
				case len(diffs) > 0:
					t.Logf("scenario %s fails as expected: %s", sc.name, strings.Join(diffs, "; "))
				}
			}
		})
	}
}
