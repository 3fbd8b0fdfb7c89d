package pytest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

// TestAssembleNamesTheRunnerEngine: the notes say which engine rendered
// the runner template, as the render check's notes do; a runner copied
// verbatim was not rendered and gets no such note.
func TestAssembleNamesTheRunnerEngine(t *testing.T) {
	t.Parallel()
	const tmpl = "src/template/pytest_runner.py"
	cases := []struct {
		name   string
		engine *jinja.Engine
		want   string // "" : no engine note
	}{
		{"Jinja2", &jinja.Engine{Jinja2: true, Version: "3.1.2"}, "Python Jinja2 3.1.2 rendered the runner template " + tmpl + ", as production does."},
		{"gonja", &jinja.Engine{Note: "no python3 on this machine can import jinja2"},
			"gonja rendered the runner template " + tmpl + ": no python3 on this machine can import jinja2. The bytes may differ from production's, which Python Jinja2 renders."},
		{"copied verbatim", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			scen := &runnerOutcome{Template: tmpl, Engine: tc.engine, Results: []scenarioResult{{Name: "all-pass"}}}
			res := assemble(context.Background(), checks.Result{Check: "pytest"}, nil, scen)
			has := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "rendered the runner template") })
			if tc.want == "" && has || tc.want != "" && !slices.Contains(res.Notes, tc.want) {
				t.Errorf("notes, want %q:\n%s", tc.want, strings.Join(res.Notes, "\n"))
			}
		})
	}
}
