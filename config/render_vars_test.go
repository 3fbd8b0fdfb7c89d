package config

import (
	"strings"
	"testing"
)

// TestVarSetNamesAreReadable: a variable set's name is key=value pairs,
// with no Go map syntax and no newline, whatever the matrix values are.
func TestVarSetNamesAreReadable(t *testing.T) {
	cases := []struct {
		name  string
		value any
		want  string
	}{
		{"int", 5, "k=5"},
		{"null", nil, "k=null"},
		{"bool", true, "k=true"},
		{"string", "abc", "k=abc"},
		{"string with newline", "a\nb", `k=a\nb`},
		{"map", map[string]any{"number": 1, "title": "slow"}, `k={"number":1,"title":"slow"}`},
		{"list of maps", []any{map[string]any{"b": 2}}, `k=[{"b":2}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := Group{Matrix: map[string][]any{"k": {c.value}}}
			sets := g.VarSets(Template{Path: "**"})
			if len(sets) != 1 {
				t.Fatalf("%d sets", len(sets))
			}
			got := sets[0].Name
			if got != c.want {
				t.Errorf("name %q, want %q", got, c.want)
			}
			if strings.Contains(got, "map[") || strings.Contains(got, "\n") {
				t.Errorf("name %q has Go map syntax or a newline", got)
			}
		})
	}
}

// TestCopiedFilesAreNotTemplates: files a group lists under copy are
// copied verbatim by production, so they are not templates.
func TestCopiedFilesAreNotTemplates(t *testing.T) {
	cfg, err := Decode(Path, []byte(`version: 1
groups:
  - name: t
    root: tpl
    copy: ["tests/*.py"]
    templates:
      - path: "**"
`))
	if err != nil {
		t.Fatal(err)
	}
	g := &cfg.Groups[0]
	cases := []struct {
		rel      string
		template bool
	}{
		{"tests/parser.py", false},
		{"tests/test.sh", true},
		{"parser.py", true},
	}
	for _, c := range cases {
		if got := len(g.TemplateFor(c.rel)) > 0; got != c.template {
			t.Errorf("%s: template %v, want %v", c.rel, got, c.template)
		}
		if got := g.Copied(c.rel); got == c.template {
			t.Errorf("%s: copied %v", c.rel, got)
		}
	}
	if _, err := Decode(Path, []byte("version: 1\ngroups:\n  - name: t\n    root: tpl\n    copy: [\"[\"]\n    templates: [{path: \"**\"}]\n")); err == nil || !strings.Contains(err.Error(), "copy") {
		t.Errorf("a bad copy glob: %v", err)
	}
}

// varsOf returns the variable sets Default() gives a template path of a
// group.
func varsOf(t *testing.T, group, rel string) []VarSet {
	t.Helper()
	g, ok := Default().Group(group)
	if !ok {
		t.Fatalf("no group %s", group)
	}
	entries := g.TemplateFor(rel)
	if len(entries) == 0 {
		t.Fatalf("%s:%s is not a template", group, rel)
	}
	return g.VarSets(entries[0])
}

// TestDefaultsPassWhatDatasmithPasses: the defaults give each template the
// variables datasmith's renderer passes to it (harbor_adapter/utils.py,
// adapter.py, github/render.py at 00a1bbe), and no others.
func TestDefaultsPassWhatDatasmithPasses(t *testing.T) {
	cases := []struct {
		group, rel string
		has        []string
		lacks      []string
		check      func(t *testing.T, vars map[string]any)
	}{
		{group: "harbor", rel: "tests/test.sh",
			has: []string{"base_commit", "task_id", "owner", "repo", "issue_number", "run_pytest", "rounds"}},
		{group: "harbor", rel: "tests/setup.sh",
			has:   []string{"task_id", "owner", "repo", "issue_number", "rounds", "extra_setup_commands"},
			lacks: []string{"base_commit", "run_pytest", "restore_paths"}},
		{group: "harbor", rel: "environment/Dockerfile",
			has:   []string{"base_image", "numba_threads", "lsv_rounds", "restore_paths"},
			lacks: []string{"base_commit", "owner"}},
		{group: "harbor", rel: "solution/solve.sh", has: []string{"solution_patch"}, lacks: []string{"base_commit"}},
		{group: "prompts", rel: "final.md.j2", has: []string{"repo_description", "initial_observations", "issues"},
			check: func(t *testing.T, vars map[string]any) {
				if _, ok := vars["issues"].(string); !ok {
					t.Errorf("final.md.j2 gets issues as %T, want a string", vars["issues"])
				}
			}},
		{group: "prompts", rel: "issues.md.j2", has: []string{"issues"}, lacks: []string{"repo_description"},
			check: func(t *testing.T, vars map[string]any) {
				list, ok := vars["issues"].([]any)
				if !ok || len(list) == 0 {
					t.Fatalf("issues.md.j2 gets issues as %T", vars["issues"])
				}
				it, _ := list[0].(map[string]any)
				for _, k := range []string{"number", "title", "url", "description", "comments", "cross_references"} {
					if _, ok := it[k]; !ok {
						t.Errorf("an issue has no %s", k)
					}
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.group+":"+c.rel, func(t *testing.T) {
			sets := varsOf(t, c.group, c.rel)
			for _, s := range sets {
				for _, k := range c.has {
					if _, ok := s.Vars[k]; !ok {
						t.Errorf("%s: no %s", s.Name, k)
					}
				}
				for _, k := range c.lacks {
					if _, ok := s.Vars[k]; ok {
						t.Errorf("%s: has %s, which production does not pass", s.Name, k)
					}
				}
				// test.sh gets rounds=None too, so the rendered-value lint
				// sees an unchecked {{ rounds }} (issue 25.4).
				if r, ok := s.Vars["rounds"]; ok && r == nil && c.rel != "tests/test.sh" {
					t.Errorf("%s: rounds=None, which production never passes", s.Name)
				}
				if rp, ok := s.Vars["restore_paths"]; ok {
					if _, isString := rp.(string); !isString {
						t.Errorf("%s: restore_paths is %T, want a string", s.Name, rp)
					}
				}
				if c.check != nil {
					c.check(t, s.Vars)
				}
			}
		})
	}
	// Files the adapter copies verbatim are not templates.
	g, _ := Default().Group("harbor")
	for _, rel := range []string{"tests/parser.py", "tests/pytest_runner.py", "environment/entrypoint.sh", "instruction.md"} {
		if len(g.TemplateFor(rel)) > 0 || !g.Copied(rel) {
			t.Errorf("%s: want copied, not rendered", rel)
		}
	}
}
