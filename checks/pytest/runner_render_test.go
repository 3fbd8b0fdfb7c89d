package pytest

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/plan"
)

// TestRunnerRendersAsProduction: the runner is the file production writes:
// a file the group copies is taken verbatim (Python with "{%s}" % name is
// not Jinja), a rendered one is Python Jinja2's bytes with the config's
// limits.
func TestRunnerRendersAsProduction(t *testing.T) {
	if _, _, ok := jinja.FindPython(context.Background()); !ok {
		t.Skip("no python3 with jinja2 on this machine: not run")
	}
	const copied = "import sys\nname = 'x'\nprint(\"{%s}\" % name)\n"
	cases := []struct {
		name, copy, limits, src string
		templates               string // the group's template entries; "": all files
		want                    string // the runner text has it
		err                     string // the error has it
	}{
		{name: "copied verbatim", copy: `["tests/*.py"]`, src: copied, want: copied},
		{name: "rendered by Jinja2", copy: "[]", src: "ROUNDS = '{{ rounds }}'\n", want: "ROUNDS = 'None'\n"},
		// A runner no template entry names renders with the group's vars
		// (the copy before checks.RenderTemplate indexed an entry's sets).
		{name: "no template entry", copy: "[]", templates: `[{path: "other/**"}]`, src: "ROUNDS = '{{ rounds }}'\n", want: "ROUNDS = 'None'\n"},
		{name: "the config's output limit", copy: "[]", limits: "limits: {render_output: 1000}\n", src: "X = '{{ 'x' * 5000 }}'\n", err: "1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.templates == "" {
				c.templates = `[{path: "**"}]`
			}
			cfgText := "version: 1\ngroups:\n  - name: h\n    root: tpl\n    jinja: {strict_undefined: true, keep_trailing_newline: true}\n    vars: {rounds: null}\n    copy: " + c.copy + "\n    templates: " + c.templates + "\npytest:\n  runner: {template: \"h:tests/pytest_runner.py\"}\n" + c.limits
			dir := makeRepo(t, map[string]string{"tpl/tests/pytest_runner.py": "# base\n"}, map[string]string{"tpl/tests/pytest_runner.py": c.src})
			cfg, err := config.Decode(config.Path, []byte(cfgText))
			if err != nil {
				t.Fatal(err)
			}
			p, err := plan.Build(context.Background(), gitx.Repo{Dir: dir}, cfg, "main", "head")
			if err != nil {
				t.Fatal(err)
			}
			in := &checks.Input{Repo: dir, Plan: p, Config: cfg, WorkDir: t.TempDir()}
			text, err := renderRunner(context.Background(), in, cfg, cfg.Pytest.Runner, p.Head)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if text != c.want {
				t.Errorf("runner %q, want %q", text, c.want)
			}
		})
	}
}
