package render

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
)

// TestDatasmithDefaults: with the defaults (no config file), each template
// renders with what datasmith's renderer passes to it: a setup.sh that
// reads base_commit fails as it does in production, the prompts get the
// real shapes of issues, and the helpers the adapter copies are never
// rendered.
func TestDatasmithDefaults(t *testing.T) {
	t.Parallel()
	const harbor = "src/datasmith/harbor_adapter/template/"
	const prompts = "src/datasmith/github/templates/"
	cases := []struct {
		name    string
		head    map[string]string
		want    checks.Conclusion
		finding string // in a failure finding's message
		diff    string // in the first change's diff
	}{
		{name: "setup.sh reads base_commit", head: map[string]string{harbor + "tests/setup.sh": "#!/bin/bash\ngit checkout {{ base_commit }}\n"},
			want: checks.Failure, finding: "'base_commit' is undefined"},
		{name: "setup.sh reads rounds", head: map[string]string{harbor + "tests/setup.sh": "#!/bin/bash\nrun --rounds {{ rounds }}\n"},
			want: checks.Success, diff: "+run --rounds 5"},
		{name: "test.sh reads base_commit", head: map[string]string{harbor + "tests/test.sh": "#!/bin/bash\ngit diff {{ base_commit }}\n"},
			want: checks.Success},
		{name: "a copied helper is Python, not Jinja", head: map[string]string{harbor + "tests/parser.py": "name = 'a'\nprint(\"{%s}\" % name)\n"},
			want: checks.Skipped},
		{name: "final.md.j2 gets issues as a string", head: map[string]string{prompts + "final.md.j2": "{{ repo_description }}\n{{ issues | trim }}\n"},
			want: checks.Success, diff: "+# Issue #1: parse() is slow"},
		{name: "issues.md.j2 gets the issue objects", head: map[string]string{prompts + "issues.md.j2": "{% for it in issues %}{{ it.description }} {{ it.comments | join(', ') }} {{ it.cross_references | join(', ') }}\n{% endfor %}"},
			want: checks.Success, diff: "+It takes 2 s. Seen on 1.2 too. #2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := checktest.Repo(t, map[string]string{harbor + "tests/test.sh": "#!/bin/bash\n", harbor + "tests/setup.sh": "#!/bin/bash\n", harbor + "tests/parser.py": "x = 1\n",
				prompts + "final.md.j2": "x\n", prompts + "issues.md.j2": "x\n"}, c.head)
			in := checktest.Input(t, r.Repo, checktest.Base, checktest.Head, config.Default(), nil)
			p := in.Plan
			if c.want == checks.Skipped {
				if len(p.Templates) != 0 {
					t.Fatalf("the copied file is a template of the plan: %+v", p.Templates)
				}
				return
			}
			res := runCheck(t, in, true)
			if res.Conclusion != c.want {
				t.Errorf("conclusion %s, want %s:\n%s", res.Conclusion, c.want, findingsText(res))
			}
			if c.finding != "" && !strings.Contains(findingsText(res), c.finding) {
				t.Errorf("no finding with %q:\n%s", c.finding, findingsText(res))
			}
			if c.diff != "" && (len(res.Changes) == 0 || !strings.Contains(res.Changes[0].Diff, c.diff)) {
				t.Errorf("the diff has no %q: %+v", c.diff, res.Changes)
			}
		})
	}
}
