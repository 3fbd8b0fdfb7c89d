package examples

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// renderJob is one template and variable set, rendered by Python Jinja2.
type renderJob struct {
	ID       string         `json:"id"`
	Template string         `json:"template"`
	Vars     map[string]any `json:"vars"`
}

type renderGroup struct {
	Root  string         `json:"root"`
	Jinja map[string]any `json:"jinja"`
	Jobs  []renderJob    `json:"jobs"`
}

type renderResult struct {
	ID  string `json:"id"`
	OK  bool   `json:"ok"`
	Out string `json:"out"`
	Err string `json:"err"`
}

// renderGroups lists, for every group of the config in the exported tree
// dir, every template and variable set as a job. The ids are
// prefix+"group:template[varset]".
func renderGroups(t *testing.T, dir, prefix string, cfg *config.Config) []renderGroup {
	t.Helper()
	var groups []renderGroup
	for _, g := range cfg.Groups {
		rg := renderGroup{
			Root: filepath.Join(dir, g.Root),
			Jinja: map[string]any{
				"strict_undefined":      g.Jinja.StrictUndefined,
				"keep_trailing_newline": g.Jinja.KeepTrailingNewline,
				"trim_blocks":           g.Jinja.TrimBlocks,
				"lstrip_blocks":         g.Jinja.LstripBlocks,
				"autoescape":            g.Jinja.Autoescape,
			},
		}
		err := filepath.WalkDir(rg.Root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(rg.Root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			entries := g.TemplateFor(rel)
			if len(entries) == 0 {
				return nil
			}
			for _, vs := range g.VarSets(entries[0]) {
				rg.Jobs = append(rg.Jobs, renderJob{ID: fmt.Sprintf("%s%s:%s[%s]", prefix, g.Name, rel, vs.Name), Template: rel, Vars: vs.Vars})
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", rg.Root, err)
		}
		groups = append(groups, rg)
	}
	return groups
}

// runJinja2 renders the jobs of groups in one Python process.
func runJinja2(t *testing.T, groups []renderGroup) map[string]renderResult {
	t.Helper()
	in, err := json.Marshal(map[string]any{"groups": groups})
	if err != nil {
		t.Fatalf("encode render request: %v", err)
	}
	cmd := exec.Command(debianPy, "testdata/render_jinja.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render_jinja.py: %v\n%s", err, stderr.String())
	}
	var results []renderResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("render_jinja.py output: %v", err)
	}
	byID := map[string]renderResult{}
	for _, r := range results {
		byID[r.ID] = r
	}
	return byID
}

// renderAll renders every template of every group of the config in the
// exported tree dir, for every variable set, in one Python process. The ids
// are "group:template[varset]".
func renderAll(t *testing.T, dir string, cfg *config.Config) map[string]renderResult {
	t.Helper()
	return runJinja2(t, renderGroups(t, dir, "", cfg))
}

// revRender is one revision of the example, exported, with the Jinja2
// renders of its templates.
type revRender struct {
	dir     string
	cfg     *config.Config
	results map[string]renderResult
}

var (
	revRendersOnce sync.Once
	revRendersOf   map[string]revRender
)

// revRenders exports every revision of the shared example (into its
// folder, which TestMain removes) and renders all of them with Python
// Jinja2 in one process, once for the tests that compare against it.
func revRenders(t *testing.T) map[string]revRender {
	t.Helper()
	b := example(t)
	revRendersOnce.Do(func() {
		out := map[string]revRender{}
		var groups []renderGroup
		for i, r := range revs(b) {
			dir := filepath.Join(b.Dir+"-exports", fmt.Sprint(i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := (gitx.Repo{Dir: b.Dir}).Export(context.Background(), r[1], dir); err != nil {
				t.Fatalf("export %s: %v", r[0], err)
			}
			cfg := configAt(t, dir)
			groups = append(groups, renderGroups(t, dir, r[0]+"|", cfg)...)
			out[r[0]] = revRender{dir: dir, cfg: cfg, results: map[string]renderResult{}}
		}
		for id, res := range runJinja2(t, groups) {
			rev, rest, _ := strings.Cut(id, "|")
			res.ID = rest
			out[rev].results[rest] = res
		}
		revRendersOf = out
	})
	if revRendersOf == nil {
		t.Fatal("the Jinja2 renders of the example's revisions failed in an earlier test")
	}
	return revRendersOf
}

// bashSyntax returns the bash -n error of script, or "" when it parses.
func bashSyntax(t *testing.T, script string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "script.sh")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "-n", f).CombinedOutput()
	if err != nil {
		return strings.TrimSpace(string(out)) + " (" + err.Error() + ")"
	}
	return ""
}

// failure is the outcome of one render and bash -n; the zero value is a pass.
type failure struct {
	Stage string // "render" or "bash -n"
	Msg   string // the error text; for an expectation, a part of it
}

// expectedFailures are the documented failures of the bad head: the
// undefined skip_reason for run_pytest=false, and an if without fi for
// run_pytest=true (the render works, then bash -n fails).
var expectedFailures = map[string]failure{
	"harbor:tests/test.sh[rounds=5,run_pytest=false]":    {"render", "skip_reason"},
	"harbor:tests/test.sh[rounds=null,run_pytest=false]": {"render", "skip_reason"},
	"harbor:tests/test.sh[rounds=5,run_pytest=true]":     {"bash -n", "syntax error"},
	"harbor:tests/test.sh[rounds=null,run_pytest=true]":  {"bash -n", "syntax error"},
}

func TestTemplatesRenderWithJinja2(t *testing.T) {
	t.Parallel()
	needPython(t, "jinja2")
	b := example(t)
	shellcheck, _ := exec.LookPath("shellcheck")
	for _, r := range revs(b) {
		t.Run(r[0], func(t *testing.T) {
			t.Parallel()
			results := revRenders(t)[r[0]].results
			// Per-template variables: only test.sh has the matrix (4 sets);
			// setup.sh, the Dockerfile, the runner and the prompt have one.
			sets := map[string]int{}
			for id := range results {
				name, _, _ := strings.Cut(id, "[")
				sets[name]++
			}
			if sets["harbor:tests/test.sh"] != 4 || len(results) < 8 {
				t.Fatalf("%d renders (%v), want at least 8: test.sh in 4 sets, 3 other harbor templates and 1 prompt in one", len(results), sets)
			}
			for id := range results {
				if strings.Contains(id, "tests/parser.py") || strings.Contains(id, "/fc_") {
					t.Errorf("%s: a file of copy: is rendered", id)
				}
			}
			var shellFiles []string
			for _, id := range slices.Sorted(maps.Keys(results)) {
				res := results[id]
				var got failure
				switch {
				case !res.OK:
					got = failure{"render", res.Err}
				case strings.Contains(id, ".sh["):
					if msg := bashSyntax(t, res.Out); msg != "" {
						got = failure{"bash -n", msg}
						break
					}
					f := filepath.Join(t.TempDir(), "rendered.sh")
					if err := os.WriteFile(f, []byte(res.Out), 0o644); err != nil {
						t.Fatal(err)
					}
					shellFiles = append(shellFiles, f)
				}
				var want failure
				if r[0] == HeadBad {
					want = expectedFailures[id]
				}
				if got.Stage != want.Stage || !strings.Contains(got.Msg, want.Msg) {
					t.Errorf("%s: got %+v, want %+v", id, got, want)
				}
			}
			for id := range expectedFailures {
				if _, ok := results[id]; !ok {
					t.Errorf("no render of %s", id)
				}
			}
			if shellcheck != "" && len(shellFiles) > 0 {
				out, err := exec.Command(shellcheck, append([]string{"-S", "error"}, shellFiles...)...).CombinedOutput()
				if err != nil {
					t.Errorf("shellcheck -S error on %d rendered scripts: %v\n%s", len(shellFiles), err, out)
				}
			}
		})
	}
}
