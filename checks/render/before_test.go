package render

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestFailsBeforeThisChange: a render error or a bash -n failure at head
// that the base has too (same template, same variable set, same error) is
// a warning "fails before this change"; pre_existing: fail keeps it a
// failure, and a different error at head stays a failure. A template that
// no variable set renders at either side is "not rendered": the check has
// no bytes to judge, so it is not run, never a pass and never "fails
// before this change".
func TestFailsBeforeThisChange(t *testing.T) {
	t.Parallel()
	// One set (flag=false) renders at both sides: the error of the other
	// is the repository's.
	undefinedBase := "#!/bin/bash\n{% if flag %}echo {{ nope }}{% endif %}\n"
	undefinedHead := "#!/bin/bash\necho changed\n{% if flag %}echo {{ nope }}{% endif %}\n"
	// No set renders at either side: the tool lacks the variables.
	blindBase := "#!/bin/bash\necho {{ nope }}\n"
	blindHead := "#!/bin/bash\necho changed\necho {{ nope }}\n"
	bashBase := "#!/bin/bash\nif true; then\necho {{ name }}\n"
	bashHead := "#!/bin/bash\necho changed\nif true; then\necho {{ name }}\n"
	cases := []struct {
		name, cfg, base, head string
		want                  checks.Conclusion
		level                 checks.Level
		title                 string
	}{
		{"same render error", testConfig, undefinedBase, undefinedHead, checks.Success, checks.LevelWarning, "fails before this change"},
		{"same render error, pre_existing: fail", testConfig + "pre_existing: fail\n", undefinedBase, undefinedHead, checks.Failure, checks.LevelFailure, "fails before this change"},
		{"another render error at head", testConfig, undefinedBase, "#!/bin/bash\n{% if flag %}echo {{ other }}{% endif %}\n", checks.Failure, checks.LevelFailure, "Render error at head"},
		{"no set renders at either side", testConfig, blindBase, blindHead, checks.NotRun, checks.LevelWarning, "Not rendered"},
		{"no set renders at either side, pre_existing: fail", testConfig + "pre_existing: fail\n", blindBase, blindHead, checks.NotRun, checks.LevelWarning, "Not rendered"},
		{"no set renders, another undefined name at head", testConfig, blindBase, "#!/bin/bash\necho {{ other }}\n", checks.NotRun, checks.LevelWarning, "Not rendered"},
		{"no set renders at base, a syntax error at head", testConfig, blindBase, "#!/bin/bash\n{% if %}\n", checks.Failure, checks.LevelFailure, "Render error at head"},
		{"same bash -n failure", testConfig, bashBase, bashHead, checks.Success, checks.LevelWarning, "fails before this change"},
		{"bash -n failure only at head", testConfig, "#!/bin/bash\necho {{ name }}\n", bashHead, checks.Failure, checks.LevelFailure, "bash -n rejects the rendered script"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := inputConfig(t, c.cfg, map[string]string{"tpl/run.sh": c.base}, map[string]string{"tpl/run.sh": c.head}, nil)
			res := runCheck(t, in, false)
			if res.Conclusion != c.want {
				t.Errorf("conclusion %s, want %s:\n%s", res.Conclusion, c.want, findingsText(res))
			}
			n := 0
			for _, f := range res.Findings {
				if f.Path == "tpl/run.sh" && f.Level == c.level && strings.Contains(f.Title, c.title) {
					n++
				}
			}
			if n == 0 {
				t.Errorf("no %s finding titled %q:\n%s", c.level, c.title, findingsText(res))
			}
		})
	}
}
