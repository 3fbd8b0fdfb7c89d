package restore

import (
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

// TestAssembleNamesTheEngine: the notes say which engine rendered the
// step's template, as the render check's notes do.
func TestAssembleNamesTheEngine(t *testing.T) {
	cases := []struct {
		name   string
		engine jinja.Engine
		want   string
	}{
		{"Jinja2", jinja.Engine{Jinja2: true, Version: "3.1.2"}, "Python Jinja2 3.1.2 rendered the restore step's template tests/test.sh, as production does."},
		{"Jinja2, gonja differs", jinja.Engine{Jinja2: true, Version: "3.1.2", Note: "gonja renders other bytes"},
			"Python Jinja2 3.1.2 rendered the restore step's template tests/test.sh, as production does (gonja renders other bytes, an engine difference and not a finding against this change)."},
		{"gonja", jinja.Engine{Note: "no python3 on this machine can import jinja2"},
			"gonja rendered the restore step's template tests/test.sh: no python3 on this machine can import jinja2. The bytes may differ from production's, which Python Jinja2 renders."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := checks.Result{Check: "restore"}
			assemble(&res, resultInput{step: &Step{Template: "tests/test.sh", Engine: tc.engine}, catalogue: []Outcome{{Scenario: Scenario{Name: "no-change"}, Verdict: Pass}}})
			if !slices.Contains(res.Notes, tc.want) {
				t.Errorf("notes do not say %q:\n%s", tc.want, strings.Join(res.Notes, "\n"))
			}
		})
	}
}
