package render

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestFailsBeforeThisChange: a render error or a bash -n failure at head
// that the base has too (same template, same variable set, same error) is
// a warning "fails before this change"; pre_existing: fail keeps it a
// failure, and a different error at head stays a failure.
func TestFailsBeforeThisChange(t *testing.T) {
	t.Parallel()
	undefinedBase := "#!/bin/bash\necho {{ nope }}\n"
	undefinedHead := "#!/bin/bash\necho changed\necho {{ nope }}\n"
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
		{"another render error at head", testConfig, undefinedBase, "#!/bin/bash\necho {{ other }}\n", checks.Failure, checks.LevelFailure, "Render error at head"},
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
