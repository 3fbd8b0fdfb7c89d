package plan

import (
	"context"
	"slices"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestCopiedFilesAreNotRendered: a file production copies verbatim (the
// group's copy list) is not a template of the plan, even when its text is
// not valid Jinja, and it stays a changed path, which triggers the pytest
// suites and the runner scenarios.
func TestCopiedFilesAreNotRendered(t *testing.T) {
	cases := []struct {
		name      string
		copy      []string
		templates []string
	}{
		{"copied", []string{"tests/*.py"}, []string{"tpl/tests/test.sh"}},
		{"not copied", nil, []string{"tpl/tests/parser.py", "tpl/tests/test.sh"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.Write(map[string]string{"tpl/tests/test.sh": "echo {{ x }}\n", "tpl/tests/parser.py": "x = 1\n"})
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "pr")
			r.Write(map[string]string{"tpl/tests/test.sh": "echo {{ x }} y\n", "tpl/tests/parser.py": "name = 'a'\nprint(\"{%s}\" % name)\n"})
			r.Commit("head")
			cfg := &config.Config{Groups: []config.Group{{Name: "harbor", Root: "tpl", Templates: []config.Template{{Path: "**"}}, Copy: c.copy}}}
			p, err := Build(context.Background(), r.Repo, cfg, "main", "pr")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tm := range p.Templates {
				got = append(got, tm.Path)
			}
			if !slices.Equal(got, c.templates) {
				t.Errorf("templates %v, want %v", got, c.templates)
			}
			if !slices.Contains(p.ChangedPaths(), "tpl/tests/parser.py") {
				t.Errorf("changed paths %v lack the copied file", p.ChangedPaths())
			}
		})
	}
}
