package rendercode

import (
	"context"
	"fmt"
	"github.com/formula-code/template-verify/internal/resultcache"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestObserveRendersOfTests runs a repository whose render code passes
// **asdict(spec) (no name the static reading can see), searches two
// folders with one loader, and loads the prompt from text: the recorded
// renders give each template its variable sets, with the variants the
// dataclass's types allow.
func TestObserveRendersOfTests(t *testing.T) {
	python(t)
	r, sha := commit(t, testdataFiles(t, "testdata/ctx_shape"))
	cfg := Config(context.Background(), r.Repo, sha)
	if cfg.Derived == nil || cfg.Derived.Fallback {
		t.Fatalf("nothing derived: %+v", cfg.Derived)
	}
	notes := strings.Join(Where(cfg), "\n")
	if !strings.Contains(notes, "recorded 2 renders from 2 tests") {
		t.Fatalf("notes do not say what was recorded:\n%s", notes)
	}
	g, tmpl := findEntry(t, cfg, "pkg/templates", "tests/test.sh")
	if want := []string{"pkg/templates", "pkg/shared"}; !slices.Equal(g.Search, want) {
		t.Errorf("search path %v, want the loader's %v (the include of common.sh is in the second)", g.Search, want)
	}
	if !g.Jinja.StrictUndefined || !g.Jinja.KeepTrailingNewline {
		t.Errorf("options %+v, want the observed strict_undefined and keep_trailing_newline", g.Jinja)
	}
	sets := g.VarSets(tmpl)
	for _, want := range []map[string]any{
		{"task": "t1", "run_pytest": true, "rounds": nil},
		{"task": "t1", "run_pytest": false, "rounds": nil},
		{"task": "t1", "run_pytest": true, "rounds": 1},
	} {
		if !slices.ContainsFunc(sets, func(s config.VarSet) bool { return sameVars(s.Vars, want) }) {
			t.Errorf("no variable set %v among %v", want, setNames(sets))
		}
	}
	if sets[0].Name != "tests/test_render.py::test_render_script" {
		t.Errorf("first set is named %q, want the test that rendered it", sets[0].Name)
	}
	pg, prompt := findEntry(t, cfg, "pkg/prompts", "final.md")
	ps := pg.VarSets(prompt)
	if len(ps) != 1 || ps[0].Vars["issue"] != "Fix it" {
		t.Errorf("prompt sets %+v, want the one the test renders", ps)
	}
}

func findEntry(t *testing.T, cfg *config.Config, root, rel string) (*config.Group, config.Template) {
	t.Helper()
	for i := range cfg.Groups {
		g := &cfg.Groups[i]
		if g.Root != root {
			continue
		}
		for _, e := range g.Templates {
			if e.Path == rel {
				return g, e
			}
		}
	}
	var have []string
	for _, g := range cfg.Groups {
		for _, e := range g.Templates {
			have = append(have, g.Root+":"+e.Path)
		}
	}
	t.Fatalf("no entry %s in %s; have %v", rel, root, have)
	return nil, config.Template{}
}

func setNames(sets []config.VarSet) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// TestCopiedFileOutsideRootsTriggersTheSuite: a file the render code
// copies into the task is part of the task wherever it lives, so its
// change runs the suite (never "nothing to verify").
func TestCopiedFileOutsideRootsTriggersTheSuite(t *testing.T) {
	python(t)
	r, sha := commit(t, map[string]string{
		"pkg/__init__.py":      "",
		"pkg/templates/run.sh": "echo {{ name }}\n",
		"pkg/helpers/parse.py": "print('parse')\n",
		"pkg/render.py":        "import shutil\nfrom pathlib import Path\nimport jinja2\nHERE = Path(__file__).parent\nENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / 'templates')))\n\n\ndef write(out: Path) -> None:\n    (out / 'run.sh').write_text(ENV.get_template('run.sh').render(name='n'))\n    shutil.copy2(HERE / 'helpers' / 'parse.py', out / 'parse.py')\n",
		"tests/test_write.py":  "from pkg.render import write\n\n\ndef test_write(tmp_path):\n    write(tmp_path)\n    assert (tmp_path / 'parse.py').exists()\n",
	})
	cfg := Config(context.Background(), r.Repo, sha)
	if len(cfg.Pytest.Suites) != 1 {
		t.Fatalf("suites %+v", cfg.Pytest.Suites)
	}
	if trig := cfg.Pytest.Suites[0].Triggers; !slices.Contains(trig, "pkg/helpers/parse.py") {
		t.Errorf("triggers %v lack the copied pkg/helpers/parse.py", trig)
	}
}

// TestObserveStubsMissingImports: render code that imports a package that
// is not installed still renders under the recording (the import is a
// stub, and a note names it).
func TestObserveStubsMissingImports(t *testing.T) {
	python(t)
	r, sha := commit(t, map[string]string{
		"pkg/__init__.py":      "",
		"pkg/templates/run.sh": "echo {{ name }}\n",
		"pkg/render.py":        "from pathlib import Path\nimport jinja2\nimport not_installed_client as client\nfrom not_installed_lib.sub import Base, decorate\n\n\nclass Spec(Base):\n    pass\n\n\n@decorate(retries=2)\ndef fetch():\n    return client.get('x')\n\n\nENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / 'templates')))\n\n\ndef render(name):\n    return ENV.get_template('run.sh').render(name=name)\n",
		"tests/test_render.py": "from pkg.render import render\n\n\ndef test_render():\n    assert render('n') == 'echo n'\n",
	})
	cfg := Config(context.Background(), r.Repo, sha)
	g, e := findEntry(t, cfg, "pkg/templates", "run.sh")
	if sets := g.VarSets(e); len(sets) != 1 || sets[0].Vars["name"] != "n" {
		t.Errorf("sets %+v, want the one the test renders", sets)
	}
	notes := strings.Join(Where(cfg), "\n")
	if !strings.Contains(notes, "not_installed_client, not_installed_lib") {
		t.Errorf("no note names the stubbed imports:\n%s", notes)
	}
}

// TestObserveSaysWhyNothingRendered: when the render tests record nothing
// because they do not import (a module of the repository itself is
// missing, which is never stubbed), the note names the error.
func TestObserveSaysWhyNothingRendered(t *testing.T) {
	python(t)
	r, sha := commit(t, map[string]string{
		"pkg/__init__.py":      "",
		"pkg/templates/run.sh": "echo {{ name }}\n",
		"pkg/render.py":        "from pathlib import Path\nimport jinja2\nfrom pkg.gone import helper\nENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / 'templates')))\n\n\ndef render(name):\n    return ENV.get_template('run.sh').render(name=name)\n",
		"tests/test_render.py": "from pkg.render import render\n\n\ndef test_render():\n    assert render('n') == 'echo n'\n",
	})
	notes := strings.Join(Where(Config(context.Background(), r.Repo, sha)), "\n")
	if !strings.Contains(notes, "recorded no render: ModuleNotFoundError: No module named 'pkg.gone'") {
		t.Errorf("no note says why nothing was recorded:\n%s", notes)
	}
}

// TestObserveCacheKeysByTree: with a cache folder, a second run on the
// same tree (another clone, another commit) reads the recording back
// instead of running the tests, and gives the same variable sets.
func TestObserveCacheKeysByTree(t *testing.T) {
	python(t)
	ctx := resultcache.WithRoot(context.Background(), t.TempDir())
	files := testdataFiles(t, "testdata/ctx_shape")
	r1, sha1 := commit(t, files)
	first := Config(ctx, r1.Repo, sha1)
	r2, sha2 := commit(t, files)
	second := Config(ctx, r2.Repo, sha2)
	if n1, n2 := strings.Join(Where(first), "\n"), strings.Join(Where(second), "\n"); strings.Contains(n1, "read from the cache") || !strings.Contains(n2, "recorded (read from the cache of an earlier run on the same tree) 2 renders") {
		t.Fatalf("first run notes:\n%s\nsecond run notes:\n%s", n1, n2)
	}
	g1, e1 := findEntry(t, first, "pkg/templates", "tests/test.sh")
	g2, e2 := findEntry(t, second, "pkg/templates", "tests/test.sh")
	s1, s2 := g1.VarSets(e1), g2.VarSets(e2)
	if len(s1) != len(s2) {
		t.Fatalf("sets %v and %v", setNames(s1), setNames(s2))
	}
	for i := range s1 {
		if s1[i].Name != s2[i].Name || !sameVars(s1[i].Vars, s2[i].Vars) {
			t.Errorf("set %d: %s %#v, from the cache %s %#v", i, s1[i].Name, s1[i].Vars, s2[i].Name, s2[i].Vars)
		}
		for k, v := range s1[i].Vars {
			// An int read back as a float64 renders "1.0" in Jinja2.
			if fmt.Sprintf("%T", v) != fmt.Sprintf("%T", s2[i].Vars[k]) {
				t.Errorf("set %s: %s is %T, from the cache %T", s1[i].Name, k, v, s2[i].Vars[k])
			}
		}
	}
}
