package verify

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestHeadCopyCannotHideATemplate: a head config that lists a template
// under copy: (never rendered) does not take it out of the verification:
// the base's configuration still selects it, and the scope finding names
// the copy change.
func TestHeadCopyCannotHideATemplate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, head string
	}{
		{"copy everything", "version: 1\ngroups:\n  - {name: t, root: tpl, copy: ['**'], templates: [{path: '**'}]}\n"},
		{"copy the one file", "version: 1\ngroups:\n  - {name: t, root: tpl, copy: [a.sh], templates: [{path: '**'}]}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := repoWith(t, cfgA, c.head)
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: resolveChecks})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, tm := range rep.Templates {
				paths = append(paths, tm.Path)
			}
			if !slices.Contains(paths, "tpl/a.sh") || len(rep.Results) != 1 || rep.Results[0].Conclusion != checks.Success {
				t.Fatalf("templates %v results %+v notes %v: the template must be verified", paths, rep.Results, rep.Notes)
			}
			found := false
			for _, f := range rep.Results[0].Findings {
				found = found || (f.Title == ScopeTitle && strings.Contains(f.Message+f.Details, "copy"))
			}
			if !found {
				t.Errorf("no scope finding names the copy change: %+v", rep.Results[0].Findings)
			}
		})
	}
}
