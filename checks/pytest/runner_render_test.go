package pytest

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
)

// TestRunnerRendersAsProduction: the runner is the file production writes:
// a file the group copies is taken verbatim (Python with "{%s}" % name is
// not Jinja), a rendered one is Python Jinja2's bytes with the config's
// limits.
func TestRunnerRendersAsProduction(t *testing.T) {
	t.Parallel()
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
		// (the copy before rendertemplate.Render indexed an entry's sets).
		{name: "no template entry", copy: "[]", templates: `[{path: "other/**"}]`, src: "ROUNDS = '{{ rounds }}'\n", want: "ROUNDS = 'None'\n"},
		{name: "the config's output limit", copy: "[]", limits: "limits: {render_output: 1000}\n", src: "X = '{{ 'x' * 5000 }}'\n", err: "1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.templates == "" {
				c.templates = `[{path: "**"}]`
			}
			cfgText := "version: 1\ngroups:\n  - name: h\n    root: tpl\n    jinja: {strict_undefined: true, keep_trailing_newline: true}\n    vars: {rounds: null}\n    copy: " + c.copy + "\n    templates: " + c.templates + "\npytest:\n  runner: {template: \"h:tests/pytest_runner.py\"}\n" + c.limits
			dir := makeRepo(t, map[string]string{"tpl/tests/pytest_runner.py": "# base\n"}, map[string]string{"tpl/tests/pytest_runner.py": c.src})
			cfg := checktest.Config(t, cfgText)
			in := checktest.Input(t, gitx.Repo{Dir: dir}, checktest.Base, checktest.Head, cfg, nil)
			text, err := renderRunner(context.Background(), in, cfg, cfg.Pytest.Runner, in.Plan.Head)
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
