package restore

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
)

// TestStepRendersAsProduction: the restore step is cut from the bytes
// production renders (Python Jinja2, where installed), with the config's
// render limits.
func TestStepRendersAsProduction(t *testing.T) {
	t.Parallel()
	if _, _, ok := jinja.FindPython(context.Background()); !ok {
		t.Skip("no python3 with jinja2 on this machine: not run")
	}
	cfg := func(extra string) string {
		return strings.Replace(readTestdata(t, "config.yml"), "    vars: {task_id: demo-1}\n", "    vars: {task_id: demo-1, nothing: null}\n", 1) + extra
	}
	section := func(body string) string {
		return "#!/bin/bash\nset -euo pipefail\n# ── Restore protected paths\n" + body + "\n# ── Grade\necho done\n"
	}
	cases := []struct {
		name, cfg, tmpl string
		section         string // in the step's section
		stop            string // in the stop's finding
	}{
		{name: "Jinja2's bytes", cfg: cfg(""), tmpl: section(`echo "rounds={{ nothing }}"`), section: `echo "rounds=None"`},
		{name: "gonja fails where Jinja2 renders", cfg: cfg(""), tmpl: section(`echo "{{ '%s-%s' % (task_id, 1) }}"`), section: `echo "demo-1-1"`},
		{name: "the config's output limit", cfg: cfg("limits: {render_output: 1000}\n"), tmpl: section(`echo "{{ 'x' * 5000 }}"`), stop: "1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := makeVerified(t,
				map[string]string{config.Path: c.cfg, "tpl/tests/test.sh": section("echo base")},
				map[string]string{"tpl/tests/test.sh": c.tmpl})
			in := inputFor(t, v)
			step, st := renderStep(context.Background(), in.Plan.Trees, in.Config, in.Config.Restore, in.Plan.Head, "head", "")
			if c.stop != "" {
				if st == nil || st.finding == nil || !strings.Contains(st.finding.Message, c.stop) {
					t.Fatalf("want a stop that names %q, got %+v", c.stop, st)
				}
				return
			}
			if st != nil {
				t.Fatalf("stop: %s %+v", st.title, st.finding)
			}
			if !strings.Contains(step.Section, c.section) {
				t.Errorf("section %q has no %q", step.Section, c.section)
			}
		})
	}
}
