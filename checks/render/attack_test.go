package render

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// TestRenderAttacks renders templates that crash or hang an in-process
// engine. Each must end as a failure finding that names the template and
// the limit it hit, the good template of the same change still renders, and
// the test process goes on.
func TestRenderAttacks(t *testing.T) {
	deep := strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000)
	cases := []struct {
		name, file, src string
		want            []string // the finding's message has one of these
	}{
		{"nested lists overflow the stack", "tpl/deep.txt", "{{ " + deep + " }}\n", []string{"stack passed its limit", "MB of memory (limits.render_memory)"}},
		{"nested parentheses overflow the stack", "tpl/parens.txt", "{{ " + strings.Repeat("(", 3_000_000) + "1" + strings.Repeat(")", 3_000_000) + " }}\n", []string{"stack passed its limit", "MB of memory (limits.render_memory)"}},
		{"a huge string product runs out of memory", "tpl/mult.txt", "{{ 'x' * 100000000000 }}\n", []string{"MB of memory (limits.render_memory)"}},
		{"a nested range loop runs past the time limit", "tpl/loop.txt", "{% for a in range(1000000) %}{% for b in range(1000000) %}{% endfor %}{% endfor %}\n", []string{"longer than the time limit of 2s (limits.render_time)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := input(t, map[string]string{"tpl/good.txt": "good\n"}, map[string]string{"tpl/good.txt": "good {{ name }}\n", c.file: c.src})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c2 := New()
			c2.Python = noPython
			c2.RenderTime = 2 * time.Second
			res := c2.Run(ctx, in)
			if res.Conclusion != checks.Failure {
				t.Fatalf("conclusion %s, want failure:\n%s", res.Conclusion, findingsText(res))
			}
			found := false
			for _, f := range res.Findings {
				if f.Path == c.file && f.Level == checks.LevelFailure {
					found = true
					ok := false
					for _, w := range c.want {
						ok = ok || strings.Contains(f.Message, w)
					}
					if !strings.HasPrefix(f.Message, "render of "+c.file+" stopped: ") || !ok {
						t.Errorf("finding %q does not name the template and one of the limits %q", f.Message, c.want)
					}
				}
				if f.Path == "tpl/good.txt" {
					t.Errorf("the good template has a finding: %+v", f)
				}
			}
			if !found {
				t.Fatalf("no failure finding names %s:\n%s", c.file, findingsText(res))
			}
			rendered := false
			for _, ch := range res.Changes {
				if ch.Path == "tpl/good.txt" && strings.Contains(ch.Diff, "+good world") {
					rendered = true
				}
			}
			if !rendered {
				t.Errorf("the good template did not render: %+v", res.Changes)
			}
		})
	}
}
