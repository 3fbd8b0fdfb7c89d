package rendercode

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/internal/jinja"
)

// python returns the interpreter the helper runs with, or skips.
func python(t *testing.T) string {
	t.Helper()
	py, _, ok := jinja.FindPython(context.Background())
	if !ok {
		t.Skip("no python3 with jinja2")
	}
	return py
}

// commit writes files into a new repository and commits them.
func commit(t *testing.T, files map[string]string) (*gittest.Repo, string) {
	t.Helper()
	r := gittest.New(t)
	r.Write(files)
	return r, r.Commit("render code")
}

// testdataFiles reads a folder of testdata as repository files.
func testdataFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestConfigFromHarborShapedRenderCode(t *testing.T) {
	python(t)
	r, sha := commit(t, testdataFiles(t, "testdata/harbor_shape"))
	cfg := Config(context.Background(), r.Repo, sha)
	if cfg.Derived == nil || cfg.Derived.Fallback {
		t.Fatalf("nothing derived: %+v", cfg.Derived)
	}
	if len(cfg.Groups) != 2 {
		t.Fatalf("groups %+v, want 2", cfg.Groups)
	}
	harbor, prompts := cfg.Groups[0], cfg.Groups[1]
	if harbor.Root != "pkg/adapter/template" || harbor.Where != "pkg/adapter/render.py:15" {
		t.Errorf("harbor group at %s from %s", harbor.Root, harbor.Where)
	}
	if want := (config.Jinja{StrictUndefined: true, KeepTrailingNewline: true}); harbor.Jinja != want {
		t.Errorf("harbor options %+v, want %+v", harbor.Jinja, want)
	}
	grade := entry(t, harbor, "tests/grade.sh")
	wantVars := map[string]any{"task": "example-task", "owner": "example-owner", "number": 1, "rounds": 7, "label": "none", "limit": nil}
	if !reflect.DeepEqual(grade.Vars, wantVars) {
		t.Errorf("grade.sh vars %#v, want %#v", grade.Vars, wantVars)
	}
	if want := map[string][]any{"with_tests": {true, false}}; !reflect.DeepEqual(grade.Matrix, want) {
		t.Errorf("grade.sh matrix %#v, want %#v", grade.Matrix, want)
	}
	if e := entry(t, harbor, "env/Dockerfile"); !reflect.DeepEqual(e.Vars, map[string]any{"base": "example-base", "threads": 2}) {
		t.Errorf("Dockerfile vars %#v", e.Vars)
	}
	if want := []string{"env/entry.sh", "notes.md", "tests/parse.py", "tests/runner.py"}; !slices.Equal(harbor.Copy, want) {
		t.Errorf("copy %v, want %v", harbor.Copy, want)
	}
	if !slices.Equal(harbor.Exclude, []string{PythonFiles}) {
		t.Errorf("exclude %v: no render call loads a .py file", harbor.Exclude)
	}
	last := harbor.Templates[len(harbor.Templates)-1]
	if last.Path != CatchAll || last.Vars["owner"] != "example-owner" || last.Vars["base"] != "example-base" {
		t.Errorf("catch-all entry %+v", last)
	}

	if prompts.Root != "pkg/prompts/templates" || !prompts.Jinja.TrimBlocks || !prompts.Jinja.LstripBlocks || prompts.Jinja.StrictUndefined {
		t.Errorf("prompts group %+v", prompts)
	}
	final := entry(t, prompts, "final.md.j2")
	if !reflect.DeepEqual(final.Matrix["hint"], []any{"example-hint", nil}) {
		t.Errorf("hint is optional: want a sample and None, got %#v (vars %#v)", final.Matrix["hint"], final.Vars)
	}
	if final.Vars["tickets"] != "" {
		t.Errorf("final.md.j2 gets tickets %#v, want the empty text", final.Vars["tickets"])
	}
	tickets := entry(t, prompts, "tickets.md.j2")
	list, ok := tickets.Vars["tickets"].([]any)
	if !ok || len(list) != 1 {
		t.Fatalf("tickets.md.j2 gets %#v, want one sample ticket (and no None: it renders only when there are tickets)", tickets.Vars)
	}
	if tk, _ := list[0].(map[string]any); tk["number"] != 1 || tk["title"] != "" {
		t.Errorf("the sample ticket is %#v", list[0])
	}

	if cfg.Restore == nil || cfg.Restore.Template != "template:tests/grade.sh" {
		t.Errorf("restore template %+v", cfg.Restore)
	}
	suites := cfg.Pytest.Suites
	if len(suites) != 1 {
		t.Fatalf("suites %+v", suites)
	}
	s := suites[0]
	if want := []string{"tests/test_grader.py", "tests/test_prompt_files.py"}; !slices.Equal(s.Files, want) {
		t.Errorf("suite files %v, want %v", s.Files, want)
	}
	for _, trig := range []string{"pkg/adapter/template/**", "pkg/prompts/templates/**", "pkg/adapter/render.py", "pkg/prompts/render.py", "tests/test_grader.py"} {
		if !slices.Contains(s.Triggers, trig) {
			t.Errorf("suite triggers %v lack %s", s.Triggers, trig)
		}
	}
	if s.Env["PYTHONPATH"] != "." {
		t.Errorf("PYTHONPATH %q, want .", s.Env["PYTHONPATH"])
	}
	if notes := Where(cfg); len(notes) < 2 || !strings.Contains(notes[0], "pkg/adapter/render.py:15") {
		t.Errorf("notes %q", notes)
	}
}

func entry(t *testing.T, g config.Group, p string) config.Template {
	t.Helper()
	for _, e := range g.Templates {
		if e.Path == p {
			return e
		}
	}
	t.Fatalf("group %s has no entry %s: %+v", g.Name, p, g.Templates)
	return config.Template{}
}

func TestConfigFallsBackWithoutRenderCode(t *testing.T) {
	python(t)
	// An environment in test code says what a test renders, not what
	// production renders.
	r, sha := commit(t, map[string]string{
		"tool.py":            "print('no templates here')\n",
		"tests/test_tpl.py":  "import jinja2\nENV = jinja2.Environment(loader=jinja2.FileSystemLoader('tpl'))\n",
		"pkg/conftest.py":    "import jinja2\nENV = jinja2.Environment(loader=jinja2.FileSystemLoader('tpl'))\n",
		"pkg/render_test.py": "import jinja2\nENV = jinja2.Environment(loader=jinja2.FileSystemLoader('tpl'))\n",
	})
	cfg := Config(context.Background(), r.Repo, sha)
	if !reflect.DeepEqual(cfg.Groups, config.Default().Groups) {
		t.Errorf("groups %+v, want the built-in ones", cfg.Groups)
	}
	if cfg.Derived == nil || !cfg.Derived.Fallback || !strings.Contains(strings.Join(cfg.Derived.Notes, " "), "no Python file builds a jinja2.Environment") {
		t.Errorf("derivation %+v", cfg.Derived)
	}
}

// TestHelperForms reads one module at a time and checks one thing the
// helper must find, or say it cannot.
func TestHelperForms(t *testing.T) {
	py := python(t)
	head := "import os, shutil\nfrom pathlib import Path\nimport jinja2\n"
	cases := []struct {
		name, src string
		check     func(t *testing.T, f *Found)
	}{
		{"os.path.join root and a list of names", head + `
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tpl")
env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT))
for name in ["a.sh", "b.sh"]:
    env.get_template(name).render(x=1)
`, func(t *testing.T, f *Found) {
			wantRoots(t, f, "src/tpl")
			wantTemplates(t, f, "a.sh", "b.sh")
		}},
		{"parents[1], a glob loop and an f-string name", head + `
env = jinja2.Environment(loader=jinja2.FileSystemLoader([Path(__file__).parents[1] / "tpl"]))
for p in (Path(__file__).parents[1] / "tpl").glob("*.j2"):
    env.get_template(p.name).render(y=2)
def one(kind):
    return env.get_template(f"kinds/{kind}.sh").render()
`, func(t *testing.T, f *Found) {
			wantRoots(t, f, "src/tpl")
			wantGlobs(t, f, "*.j2", "kinds/*.sh")
		}},
		{"PackageLoader and ChoiceLoader", head + `
env = jinja2.Environment(loader=jinja2.ChoiceLoader([jinja2.PackageLoader("pkg.sub"), jinja2.FileSystemLoader("shared")]))
`, func(t *testing.T, f *Found) {
			wantRoots(t, f, "src/pkg/sub/templates", "shared")
		}},
		{"an in-memory loader is reported", head + `
env = jinja2.Environment(loader=jinja2.DictLoader({"a": "b"}))
`, func(t *testing.T, f *Found) {
			if len(f.Envs) != 1 || len(f.Envs[0].Roots) != 0 || !strings.Contains(strings.Join(f.Envs[0].Unresolved, " "), "DictLoader") {
				t.Errorf("envs %+v", f.Envs)
			}
		}},
		{"an absolute root is reported", head + `
env = jinja2.Environment(loader=jinja2.FileSystemLoader("/etc/templates"))
`, func(t *testing.T, f *Found) {
			if len(f.Envs) != 1 || len(f.Envs[0].Roots) != 0 || !strings.Contains(strings.Join(f.Envs[0].Unresolved, " "), "outside the repository") {
				t.Errorf("envs %+v", f.Envs)
			}
		}},
		{"a dict literal, a dataclass and a None default", head + `
from dataclasses import dataclass, asdict
@dataclass
class Spec:
    name: str
    level: int = 3
    extra: str | None = None
env = jinja2.Environment(loader=jinja2.FileSystemLoader("tpl"), undefined=jinja2.StrictUndefined, autoescape=True)
def go(spec: Spec, fast: bool = False):
    ctx = {"fast": fast, "n": 2}
    return env.get_template("t.sh").render(**ctx, **asdict(spec), missing=None)
`, func(t *testing.T, f *Found) {
			if len(f.Sites) != 1 {
				t.Fatalf("sites %+v", f.Sites)
			}
			got := map[string][]any{}
			for k, v := range f.Sites[0].Vars {
				got[k] = v.Values
			}
			want := map[string][]any{"fast": {false, true}, "n": {2}, "name": {"example-name"}, "level": {3}, "extra": {"example-extra", nil}, "missing": {nil}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("vars %#v, want %#v", got, want)
			}
			if o := f.Envs[0].Opts; !o["strict_undefined"] || !o["autoescape"] {
				t.Errorf("options %v", o)
			}
		}},
		{"a file that does not parse is a note", head + "def broken(:\n", func(t *testing.T, f *Found) {
			if len(f.Errors) != 1 || !strings.Contains(f.Errors[0].Error, "SyntaxError") {
				t.Errorf("errors %+v", f.Errors)
			}
		}},
		{"deep nesting stops the reading of one file, not the helper", head + "x = " + strings.Repeat("(", 5000) + strings.Repeat(")", 5000) + "\n", func(t *testing.T, f *Found) {
			if len(f.Errors) != 1 {
				t.Errorf("errors %+v", f.Errors)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := `{"files": {"src/pkg/render.py": ` + quote(c.src) + `}, "py_paths": ["src/pkg/render.py", "src/pkg/sub/__init__.py"]}`
			f := &Found{}
			if err := run(context.Background(), py, []byte(body), f); err != nil {
				t.Fatal(err)
			}
			c.check(t, f)
		})
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func wantRoots(t *testing.T, f *Found, roots ...string) {
	t.Helper()
	var got []string
	for _, e := range f.Envs {
		got = append(got, e.Roots...)
		if len(e.Unresolved) > 0 {
			t.Errorf("unresolved: %v", e.Unresolved)
		}
	}
	if !slices.Equal(got, roots) {
		t.Errorf("roots %v, want %v", got, roots)
	}
}

func wantTemplates(t *testing.T, f *Found, names ...string) {
	t.Helper()
	var got []string
	for _, s := range f.Sites {
		got = append(got, s.Template)
	}
	if !slices.Equal(got, names) {
		t.Errorf("templates %v, want %v (notes %v)", got, names, f.Notes)
	}
}

func wantGlobs(t *testing.T, f *Found, globs ...string) {
	t.Helper()
	var got []string
	for _, s := range f.Sites {
		got = append(got, s.Glob)
	}
	if !slices.Equal(got, globs) {
		t.Errorf("globs %v, want %v (notes %v)", got, globs, f.Notes)
	}
}

// BenchmarkRead measures one reading of the harbor-shaped fixture: the
// tree listing, the blobs and one run of the Python helper.
func BenchmarkRead(b *testing.B) {
	py, _, ok := jinja.FindPython(context.Background())
	if !ok {
		b.Skip("no python3 with jinja2")
	}
	r := gittest.New(b)
	files := map[string]string{}
	err := filepath.WalkDir("testdata/harbor_shape", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel("testdata/harbor_shape", p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	r.Write(files)
	sha := r.Commit("render code")
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(context.Background(), r.Repo, sha, py); err != nil {
			b.Fatal(err)
		}
	}
}
