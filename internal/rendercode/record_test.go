package rendercode

import (
	"context"
	"slices"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// renderModule is a repository's render code: one environment over
// templates/, which renders task.sh.
const renderModule = `import jinja2

ENV = jinja2.Environment(loader=jinja2.FileSystemLoader("templates"), undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def render(name: str) -> str:
    return ENV.get_template("task.sh").render(name=name)
`

// addedEnv is what a pull request adds beside it: another environment
// over the same folder, with other options, that nothing renders with.
const addedEnv = `import jinja2

ENV = jinja2.Environment(loader=jinja2.FileSystemLoader("templates"), autoescape=True)
`

// TestAddedEnvironmentDoesNotChooseTheOptions: a pull request adds a
// file (found before the render module) with another Environment over
// the same folder. The head's group keeps the options of the environment
// the render code renders with, as at the base, and a note names the
// added one with both sets of options.
func TestAddedEnvironmentDoesNotChooseTheOptions(t *testing.T) {
	python(t)
	r, base := commit(t, map[string]string{"pkg/render.py": renderModule, "templates/task.sh": "echo {{ name }}\n"})
	r.Write(map[string]string{"pkg/aaa_env.py": addedEnv})
	head := r.Commit("add an environment")
	ctx := context.Background()
	b, h := Config(ctx, r.Repo, base), Config(ctx, r.Repo, head)
	if len(b.Groups) != 1 || len(h.Groups) != 1 {
		t.Fatalf("groups: base %+v, head %+v", b.Groups, h.Groups)
	}
	if b.Groups[0].Jinja != (config.Jinja{StrictUndefined: true, KeepTrailingNewline: true}) {
		t.Fatalf("base options %+v", b.Groups[0].Jinja)
	}
	if h.Groups[0].Jinja != b.Groups[0].Jinja || h.Groups[0].Where != "pkg/render.py:3" {
		t.Errorf("head options %+v from %s; want the base's %+v from pkg/render.py:3", h.Groups[0].Jinja, h.Groups[0].Where, b.Groups[0].Jinja)
	}
	want := "pkg/aaa_env.py:3: another environment over the loader root templates, with autoescape; its templates are judged with the options of the environment at pkg/render.py:3, keep_trailing_newline, strict_undefined, the one the render code renders with; nothing renders with this one"
	if !slices.Contains(h.Derived.Notes, want) {
		t.Errorf("head notes %q\nwant %q", h.Derived.Notes, want)
	}
}
