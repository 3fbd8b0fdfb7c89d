package rendertemplate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/rendertemplate"
)

// TestRender: one template rendered at one commit, as production
// writes it, with errors the callers can tell apart.
func TestRender(t *testing.T) {
	t.Parallel()
	const cfg = `version: 1
groups:
  - name: h
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {who: group}
    copy: ["copied.py"]
    templates:
      - path: "set/*"
        matrix: {rounds: [1, 2]}
      - path: "set/*"
        vars: {who: second-entry}
      - path: "bad/*"
`
	in := checktest.PR(t, cfg, cfg, map[string]string{
		"tpl/copied.py": "print('{%s}' % x)\n",
		"tpl/set/a.sh":  "who={{ who }} rounds={{ rounds }} extra={{ extra | default('') }}\n",
		"tpl/bad/a.sh":  "line one\n{{ nope }}\n",
		"tpl/loose.sh":  "who={{ who }}\n",
	}, nil)
	ctx := context.Background()
	render := func(name string, over map[string]any) (rendertemplate.Rendered, error) {
		return rendertemplate.Render(ctx, in.Plan.Trees, in.Config, name, in.Plan.Head, rendertemplate.Options{Vars: over})
	}
	cases := []struct {
		name string
		over map[string]any
		want string
		path string
	}{
		// The first set of the first matching entry, the caller's vars on top.
		{name: "tpl/set/a.sh", over: map[string]any{"extra": "x"}, want: "who=group rounds=1 extra=x\n", path: "tpl/set/a.sh"},
		{name: "tpl/set/a.sh", over: map[string]any{"who": "over"}, want: "who=over rounds=1 extra=\n", path: "tpl/set/a.sh"},
		// A file no entry names renders with the group's vars (the pytest
		// runner's copy indexed an entry's first set unguarded).
		{name: "h:loose.sh", want: "who=group\n", path: "tpl/loose.sh"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := render(c.name, c.over)
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != c.want || r.Path != c.path || r.Copied || r.Engine == nil || len(r.Source) == 0 {
				t.Errorf("text %q path %q copied %v engine %v, want %q at %s, rendered", r.Text, r.Path, r.Copied, r.Engine, c.want, c.path)
			}
		})
	}

	// A file the group copies is the source, not rendered.
	r, err := render("h:copied.py", nil)
	if err != nil || !r.Copied || r.Text != "print('{%s}' % x)\n" || r.Engine != nil {
		t.Errorf("copied: %+v, %v", r, err)
	}

	errs := []struct {
		name string
		kind error
	}{
		{"nogroup:a.sh", rendertemplate.ErrName},
		{"elsewhere/a.sh", rendertemplate.ErrName},
		{"h:missing.sh", rendertemplate.ErrMissing},
		{"h:bad/a.sh", rendertemplate.ErrRender},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := render(c.name, nil)
			var te *rendertemplate.Error
			if !errors.Is(err, c.kind) || !errors.As(err, &te) {
				t.Fatalf("error %v, want %v", err, c.kind)
			}
			for _, other := range []error{rendertemplate.ErrName, rendertemplate.ErrTree, rendertemplate.ErrMissing, rendertemplate.ErrRender} {
				if other != c.kind && errors.Is(err, other) {
					t.Errorf("error %v is also %v", err, other)
				}
			}
			// A render error keeps the engine's file and line, and the engine.
			var je *jinja.Error
			if c.kind == rendertemplate.ErrRender && (!errors.As(err, &je) || je.Line != 2 || r.Engine == nil || string(r.Source) != "line one\n{{ nope }}\n") {
				t.Errorf("render error %v (jinja error %+v), engine %v", err, je, r.Engine)
			}
		})
	}
	// A commit the repository does not have: the tree cannot be read.
	_, err = rendertemplate.Render(ctx, in.Plan.Trees, in.Config, "h:loose.sh", "0123456789012345678901234567890123456789", rendertemplate.Options{})
	if !errors.Is(err, rendertemplate.ErrTree) {
		t.Errorf("unknown commit: error %v, want ErrTemplateTree", err)
	}
}
