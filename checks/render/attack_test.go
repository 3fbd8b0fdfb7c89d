package render

import (
	"context"
	"fmt"
	"slices"
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
	t.Parallel()
	deep := strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000)
	// Which limit trips first depends on the machine's speed and on -race
	// (its shadow memory counts in the worker's resident memory): under
	// load a stack attack can pass the time limit first, and an empty loop
	// can pass the memory limit. Either way the render must stop and name
	// the limit it hit; internal/jinja's TestWorkerStopsAttacks holds each
	// limit on its own.
	stack, memory, timeLimit := "stack passed its limit", "MB of memory (limits.render_memory)", "longer than the time limit of "
	cases := []struct {
		name, file, src string
		want            []string // the finding's message has one of these
	}{
		{"nested lists overflow the stack", "tpl/deep.txt", "{{ " + deep + " }}\n", []string{stack, memory, timeLimit}},
		{"nested parentheses overflow the stack", "tpl/parens.txt", "{{ " + strings.Repeat("(", 3_000_000) + "1" + strings.Repeat(")", 3_000_000) + " }}\n", []string{stack, memory, timeLimit}},
		{"a huge string product runs out of memory", "tpl/mult.txt", "{{ 'x' * 100000000000 }}\n", []string{memory, timeLimit}},
		{"a nested range loop runs past the time limit", "tpl/loop.txt", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\n", []string{timeLimit, memory}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// zz_good.txt renders after the attack (templates render in
			// path order), in the worker that replaces the one it stopped.
			in := input(t, map[string]string{"tpl/zz_good.txt": "good\n"}, map[string]string{"tpl/zz_good.txt": "good {{ name }}\n", c.file: c.src})
			// A safety net, not the limit under test: it only ends a hung test.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c2 := New()
			c2.Python = noPython
			// The time limit holds the good template too: on a loaded
			// machine (load 22) it passed 1 s. Then the case runs again
			// with a longer limit, which the attacks still pass.
			var res checks.Result
			for _, limit := range []time.Duration{time.Second, 5 * time.Second, 20 * time.Second} {
				c2.RenderTime = limit
				res = c2.Run(ctx, in)
				if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
					return f.Path == "tpl/zz_good.txt" && strings.Contains(f.Message, "longer than the time limit")
				}) {
					break
				}
				t.Logf("the good template passed the %s limit on this machine; again with a longer one", limit)
			}
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
				if f.Path == "tpl/zz_good.txt" {
					t.Errorf("the good template has a finding: %+v", f)
				}
			}
			if !found {
				t.Fatalf("no failure finding names %s:\n%s", c.file, findingsText(res))
			}
			rendered := false
			for _, ch := range res.Changes {
				if ch.Path == "tpl/zz_good.txt" && strings.Contains(ch.Diff, "+good world") {
					rendered = true
				}
			}
			if !rendered {
				t.Errorf("the good template did not render: %+v", res.Changes)
			}
		})
	}
}

// TestRenderCaps: past limits.var_sets, limits.templates or
// limits.render_output the check fails with a finding that names the
// limit. A matrix of 2^40 sets was a fatal out-of-memory.
func TestRenderCaps(t *testing.T) {
	t.Parallel()
	var bomb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&bomb, "k%02d: [0, 1], ", i)
	}
	group := func(extra string) string {
		return "version: 1\n" + extra + "groups:\n  - name: t\n    root: tpl\n    templates:\n      - path: \"**\"\n"
	}
	cases := []struct {
		name, cfg string
		head      map[string]string
		file      string
		want      string
		maxKept   int
	}{
		{"matrix bomb", "version: 1\ngroups:\n  - name: t\n    root: tpl\n    matrix: {" + bomb.String() + "}\n    templates:\n      - path: \"**\"\n",
			map[string]string{"tpl/a.txt": "{{ k00 }}\n"}, "tpl/a.txt", "limits.var_sets allows 64 (at most 256)", 0},
		{"too many templates", group("limits: {templates: 3}\n"),
			map[string]string{"tpl/a.txt": "a", "tpl/b.txt": "b", "tpl/c.txt": "c", "tpl/d.txt": "d", "tpl/e.txt": "e"}, "", "limits.templates allows 3 (at most 2000)", 0},
		{"output", group("limits: {render_output: 1000}\n"),
			map[string]string{"tpl/a.txt": "{{ 'x' * 2000 }}"}, "tpl/a.txt", "larger than the limit of 1000 bytes (limits.render_output)", 0},
		{"kept output", group(""), map[string]string{"tpl/a.txt": "{{ 'x' * 600 }}", "tpl/b.txt": "{{ 'y' * 600 }}"}, "tpl/b.txt",
			"not rendered: the outputs of this change passed 1000 bytes in all, the most one run keeps", 1000},
		{"big template file", group("limits: {render_output: 1000}\n"),
			map[string]string{"tpl/a.txt": strings.Repeat("x", 2000)}, "tpl/a.txt", "the template file is 2000 bytes, more than the 1000 bytes that limits.render_output allows", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := inputConfig(t, c.cfg, map[string]string{"tpl/base.txt": "base\n"}, c.head, nil)
			c2 := New()
			c2.Python = noPython
			c2.MaxKept = c.maxKept
			res := c2.Run(context.Background(), in)
			if res.Conclusion != checks.Failure {
				t.Fatalf("conclusion %s:\n%s", res.Conclusion, findingsText(res))
			}
			for _, f := range res.Findings {
				if f.Path == c.file && f.Level == checks.LevelFailure && strings.Contains(f.Message, c.want) {
					return
				}
			}
			t.Errorf("no failure finding for %q with %q:\n%s", c.file, c.want, findingsText(res))
		})
	}
}
