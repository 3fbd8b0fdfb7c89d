package restore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// TestRestoreTemplateThatKillsTheRenderer: a restore template that
// overflowed the stack or ran the tool out of memory when gonja rendered it
// in the tool's process now stops in the render worker; the check fails
// with a finding that names the template and the limit, and the test
// process goes on.
func TestRestoreTemplateThatKillsTheRenderer(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // the message has one of these
	}{
		{"nested lists", "{{ " + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + " }}\n", []string{"stack passed its limit", "MB of memory (limits.render_memory)"}},
		{"string product", "{{ 'x' * 100000000000 }}\n", []string{"MB of memory (limits.render_memory)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The render time limit is the most a config allows (2 min), so
			// the memory or stack limit under test fires first: under load
			// the nested lists took 28 s, past the 20 s default (issue 20).
			cfg := readTestdata(t, "config.yml") + "limits: {render_time: 2m}\n"
			v := makeVerified(t,
				map[string]string{config.Path: cfg, "tpl/tests/test.sh": readTestdata(t, "scripts/good.sh")},
				map[string]string{"tpl/tests/test.sh": c.src})
			res := New().Run(context.Background(), inputFor(t, v))
			if res.Conclusion != checks.Failure {
				t.Fatalf("conclusion %s (%s)", res.Conclusion, res.Title)
			}
			if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
				if f.Level != checks.LevelFailure || f.Path != "tpl/tests/test.sh" || !strings.Contains(f.Message, "render of tpl/tests/test.sh stopped: ") {
					return false
				}
				return slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(f.Message, w) })
			}) {
				logFindings(t, res)
				t.Errorf("no failure finding names tpl/tests/test.sh and one of %q", c.want)
			}
		})
	}
}
