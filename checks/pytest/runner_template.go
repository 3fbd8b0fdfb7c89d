package pytest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

// runnerOutcome is what the runner scenarios gave.
type runnerOutcome struct {
	Template string // repository path of the runner template
	Results  []scenarioResult
	// Err stops the scenarios: the template does not render, or the
	// fixture could not be built. ErrLine is the template line, if known.
	Err     error
	ErrPath string
	ErrLine int
}

// runRunner renders the runner template at head with the first variable
// set of its template entry and runs the scenario catalogue with it.
func runRunner(ctx context.Context, in *checks.Input, py *python, scratch string) *runnerOutcome {
	rc := in.Config.Pytest.Runner
	out := &runnerOutcome{}
	g, rel, err := in.Config.ResolveTemplate(rc.Template)
	if err != nil {
		out.Err = fmt.Errorf("pytest.runner.template: %w", err)
		return out
	}
	out.Template = path.Join(g.Root, rel)
	out.ErrPath = out.Template
	files, err := in.Plan.Trees.Get(ctx, in.Plan.Head, g.Root)
	if err != nil {
		out.Err = fmt.Errorf("read %s at head: %w", g.Root, err)
		return out
	}
	env, err := jinja.NewEnv(files, g.Root, g.Jinja)
	if err != nil {
		out.Err = err
		return out
	}
	vars := g.Vars
	if entries := g.TemplateFor(rel); len(entries) > 0 {
		vars = g.VarSets(entries[0])[0].Vars
	}
	text, err := env.Render(rel, vars)
	if err != nil {
		var je *jinja.Error
		if errors.As(err, &je) {
			out.ErrPath, out.ErrLine = je.File, je.Line
		}
		out.Err = fmt.Errorf("the runner template does not render: %w", err)
		return out
	}
	dir := filepath.Join(scratch, "runner")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		out.Err = err
		return out
	}
	file := filepath.Join(dir, path.Base(rel))
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		out.Err = err
		return out
	}
	timeout := defaultScenarioTimeout
	if t := in.Config.Pytest.Timeout.Duration; t > 0 && t < timeout {
		timeout = t
	}
	spec := runnerSpec{Python: py.Path, Runner: file, Command: rc.Command, Result: rc.Result, Timeout: timeout}
	out.Results, err = runScenarios(ctx, spec, filepath.Join(dir, "scenarios"), scenarios())
	if err != nil {
		out.Err = fmt.Errorf("the runner scenarios could not run: %w", err)
	}
	return out
}
