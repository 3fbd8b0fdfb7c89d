// Package rendertemplate renders one template of a configuration at one
// commit as production writes it (the first variable set, the render
// limits, the engine of record), for the checks that need a template's
// text: the restore step, the pytest runner. It sits beside internal/jinja
// so that package checks, the result model that report and publish read,
// links neither the engines nor the sandbox.
package rendertemplate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/plan"
)

// The kinds of Render's errors; test them with errors.Is. A render
// error also wraps the engine's error, a *jinja.Error where the engine
// knows the file and line (errors.As).
var (
	// ErrName: the name is under no group of the config, or names
	// a group that is not in it.
	ErrName = errors.New("the template name is not valid")
	// ErrTree: the group's files at the commit cannot be read.
	ErrTree = errors.New("the template's files cannot be read")
	// ErrMissing: the commit has no such file.
	ErrMissing = errors.New("the template file is missing")
	// ErrRender: the template does not render.
	ErrRender = errors.New("the template does not render")
)

// Error is an error of Render: its Kind (one of the Err values), the
// template's repository path (empty for ErrName) and the cause.
type Error struct {
	Kind error
	Path string
	Rev  string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap lets errors.Is find the kind and errors.As the cause.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Rendered is one template rendered at one commit as production writes it.
type Rendered struct {
	Group *config.Group
	Rel   string // the template's path under the group's root
	Path  string // the template's repository path
	// Source is the template as the commit has it.
	Source []byte
	// Copied is true when the group copies the file verbatim: Text is then
	// Source and nothing rendered (Engine is nil).
	Copied bool
	// Text is the rendered bytes of record (Python Jinja2 where installed,
	// gonja otherwise).
	Text string
	// Engine made Text; nil when the file is copied or did not get to the
	// render. It is set on a render error too.
	Engine *jinja.Engine
	// Vars are the variables it rendered with.
	Vars map[string]any
}

// Options change how Render renders.
type Options struct {
	// Vars go on top of the first variable set (a restore block's vars,
	// base_commit).
	Vars map[string]any
	// Limits are the render limits; nil: the limits of the config the
	// template is resolved in.
	Limits *config.Limits
}

// Render renders the template name (a config template reference:
// "group:rel" or a repository path under a group root) of cfg at commit
// rev, once, as production does: verbatim when the group copies it, else
// with the first variable set of the first template entry that matches it
// (the group's own first set when none matches), opts.Vars on top, through
// jinja.RenderOfRecord with the render limits. The returned Rendered holds
// what is known when it fails (group, path, source, engine); the error is an
// *Error.
func Render(ctx context.Context, trees *plan.Trees, cfg *config.Config, name, rev string, opts Options) (Rendered, error) {
	var r Rendered
	g, rel, err := cfg.ResolveTemplate(name)
	if err != nil {
		return r, &Error{Kind: ErrName, Rev: rev, Err: err}
	}
	r.Group, r.Rel, r.Path = g, rel, path.Join(g.Root, rel)
	files, err := trees.GroupFiles(ctx, rev, g)
	if err != nil {
		return r, &Error{Kind: ErrTree, Path: r.Path, Rev: rev, Err: fmt.Errorf("read %s: %w", g.Root, err)}
	}
	source, ok := files[r.Path]
	if !ok {
		return r, &Error{Kind: ErrMissing, Path: r.Path, Rev: rev, Err: fmt.Errorf("there is no file %s", r.Path)}
	}
	r.Source = source
	if g.Copied(rel) {
		r.Copied, r.Text = true, string(source)
		return r, nil
	}
	env, err := jinja.NewSearchEnv(files, g.Root, g.Search, g.Jinja)
	if err != nil {
		return r, &Error{Kind: ErrRender, Path: r.Path, Rev: rev, Err: err}
	}
	r.Vars = FirstVars(g, rel, opts.Vars)
	lim := cfg.Limits
	if opts.Limits != nil {
		lim = *opts.Limits
	}
	text, engine, err := jinja.RenderOfRecord(ctx, env, rel, r.Vars, jinja.LimitsOf(lim), nil)
	r.Engine = &engine
	if err != nil {
		return r, &Error{Kind: ErrRender, Path: r.Path, Rev: rev, Err: err}
	}
	r.Text = text
	return r, nil
}

// FirstVars is the first variable set of the first template entry of g
// that matches rel (the group's own first set when none matches; its vars when
// there is no set), with over on top, in a new map.
func FirstVars(g *config.Group, rel string, over map[string]any) map[string]any {
	t := config.Template{}
	if ts := g.TemplateFor(rel); len(ts) > 0 {
		t = ts[0]
	}
	vars := map[string]any{}
	if sets := g.VarSets(t); len(sets) > 0 {
		maps.Copy(vars, sets[0].Vars)
	} else {
		maps.Copy(vars, g.Vars)
		maps.Copy(vars, t.Vars)
	}
	maps.Copy(vars, over)
	return vars
}
