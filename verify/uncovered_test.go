package verify

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

// TestTemplatesNoGroupCoversAreNotRun: a PR that changes only files that
// look like templates, outside every group, is "not run" with the files
// named, never "nothing to verify" and a pass.
func TestTemplatesNoGroupCoversAreNotRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		files     map[string]string
		uncovered []string // nil: the PR passes with nothing to verify
	}{
		{"a .j2 file anywhere", map[string]string{"docs/page.md.j2": "{{ title }}\n"}, []string{"docs/page.md.j2"}},
		{"jinja syntax beside a loader root", map[string]string{"tools/grade.sh": "echo {{ owner }}\n"}, []string{"tools/grade.sh"}},
		{"jinja syntax far from a root", map[string]string{"other/grade.sh": "echo {{ owner }}\n"}, nil},
		{"a GitHub Actions expression", map[string]string{"tools/ci.sh": "echo ${{ github.sha }}\n"}, nil},
		{"a Python file", map[string]string{"tools/gen.py": "s = '{{ x }}'\n"}, nil},
		{"a file under a root", map[string]string{"tools/tpl/new.sh.j2": "{{ x }}\n"}, nil},
		{"a file under a root that no entry selects", map[string]string{"tools/tpl2/x.md": "{{ x }}\n"}, []string{"tools/tpl2/x.md"}},
		{"a file under a root the group excludes", map[string]string{"tools/tpl2/skip/x.md": "{{ x }}\n"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write(map[string]string{".github/template-verify.yml": "version: 1\ngroups:\n  - {name: t, root: tools/tpl, templates: [{path: '**'}]}\n  - {name: u, root: tools/tpl2, templates: [{path: '*.sh'}], exclude: ['skip/**']}\n", "tools/tpl/a.sh": "a\n"})
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "pr")
			r.Write(c.files)
			r.Commit("head")
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
			if err != nil {
				t.Fatal(err)
			}
			render, _ := find(rep.Results, "render")
			if c.uncovered == nil {
				if render.Conclusion == checks.NotRun {
					t.Errorf("render not run: %s", render.Summary)
				}
				return
			}
			if rep.Overall != checks.NotRun || render.Conclusion != checks.NotRun || render.Title != UncoveredTitle {
				t.Fatalf("overall %s, render %s %q; notes %q", rep.Overall, render.Conclusion, render.Title, rep.Notes)
			}
			for _, f := range c.uncovered {
				if !strings.Contains(render.Summary, f) {
					t.Errorf("the summary does not name %s: %s", f, render.Summary)
				}
			}
			if !strings.Contains(render.Summary, "root: "+path.Dir(c.uncovered[0])) || !strings.Contains(render.Summary, ".github/template-verify.yml") {
				t.Errorf("the summary does not say what to add to the config: %s", render.Summary)
			}
			for _, n := range rep.Notes {
				if strings.Contains(n, "nothing to verify") {
					t.Errorf("note %q", n)
				}
			}
		})
	}
}

// TestUncoveredKeepsAFailure: a render failure stays a failure; the
// uncovered files are added to it.
func TestUncoveredKeepsAFailure(t *testing.T) {
	in := []checks.Result{{Check: "render", Conclusion: checks.Failure, Title: "1 render problem", Summary: "x"}}
	out := markUncovered(in, []string{"a.j2"}, ".github/template-verify.yml")
	if out[0].Conclusion != checks.Failure || !strings.Contains(out[0].Summary, "a.j2") || len(out[0].Findings) != 1 {
		t.Errorf("%+v", out[0])
	}
	if out := markUncovered(nil, []string{"a.j2"}, "c.yml"); len(out) != 1 || out[0].Conclusion != checks.NotRun {
		t.Errorf("without a render result: %+v", out)
	}
}

func find(results []checks.Result, name string) (checks.Result, bool) {
	for _, r := range results {
		if r.Check == name {
			return r, true
		}
	}
	return checks.Result{}, false
}
