package pytest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/rendertemplate"
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
	// Compared is true when the base's runner ran on the scenarios that
	// fail at head (or is the same runner); Same when the runner renders
	// to the same bytes at base and head with the same settings. Strict is
	// pre_existing: fail, read at the base. BaseNote says why the base
	// side did not run.
	Compared, Same, Strict bool
	BaseNote               string
	// Reused says where the head's results come from when they were not
	// run now; empty when they ran.
	Reused string
	// Engine rendered the head's runner; nil when the group copies it
	// verbatim or it was not rendered.
	Engine *jinja.Engine
	// Keys is the comparison of the keys the runner writes at base and
	// head (keys.go); nil when the runner did not change.
	Keys *keyOutcome
}

// runnerPrep is the runner rendered at head and at the base, before any
// scenario runs: the check renders both while it looks for the python, and
// runs no scenario when they are the same (runnerUnchanged).
type runnerPrep struct {
	rc       *config.Runner
	rel      string // the template's path in its group
	text     string // the head's runner
	out      *runnerOutcome
	headErr  bool // out.Err is set: no scenario can run
	bcfg     *config.Config
	brc      *config.Runner
	btext    string
	baseNote string // why the base side cannot run, when it cannot
}

// prepareRunner renders the runner template at head with the first
// variable set of its template entry, and the base's runner with the base
// config's settings (the head's when the base has no config that decodes).
// The two renders run at once.
func prepareRunner(ctx context.Context, in *checks.Input) *runnerPrep {
	rc := in.Config.Pytest.Runner
	p := &runnerPrep{rc: rc, out: &runnerOutcome{Strict: config.PreExistingFails(in.BaseConfig, in.Config)}}
	out := p.out
	g, rel, err := in.Config.ResolveTemplate(rc.Template)
	if err != nil {
		out.Err = fmt.Errorf("pytest.runner.template: %w", err)
		p.headErr = true
		return p
	}
	p.rel = rel
	out.Template = path.Join(g.Root, rel)
	out.ErrPath = out.Template
	p.bcfg = in.BaseConfig
	if p.bcfg == nil {
		p.bcfg = in.Config
	}
	var wg sync.WaitGroup
	var baseErr error
	if p.bcfg.Pytest != nil && p.bcfg.Pytest.Runner != nil {
		p.brc = p.bcfg.Pytest.Runner
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.btext, baseErr = renderRunner(ctx, in, p.bcfg, p.brc, baseRev(in))
		}()
	}
	text, engine, err := renderRunnerRecord(ctx, in, in.Config, rc, in.Plan.Head)
	wg.Wait()
	out.Engine = engine
	if err != nil {
		var je *jinja.Error
		if errors.As(err, &je) {
			out.ErrPath, out.ErrLine = je.File, je.Line
		}
		out.Err = err
		p.headErr = true
		return p
	}
	p.text = text
	switch {
	case p.brc == nil:
		p.baseNote = "The base config names no pytest runner, so every runner failure counts."
	case baseErr != nil:
		p.baseNote = fmt.Sprintf("The base's runner does not render (%v), so every runner failure counts.", baseErr)
	}
	return p
}

// same reports whether the runner renders to the same bytes at base and
// head and is run and read the same way.
func (p *runnerPrep) same() bool {
	return !p.headErr && p.baseNote == "" && p.btext == p.text && sameRunner(p.brc, p.rc)
}

// runnerUnchanged is the note of a check that runs no runner scenario
// because the runner is the base's: every failure would be the base's
// too ("same runner"), a warning. With pre_existing: fail such a failure
// fails the check, so the scenarios run.
func (p *runnerPrep) unchanged() (bool, string) {
	if !p.same() || p.out.Strict {
		return false, ""
	}
	return true, fmt.Sprintf("The runner scenarios did not run: %s renders to the same bytes at base and head, with the same settings. This change cannot change what they show.", p.out.Template)
}

// runRunner runs the scenario catalogue with the head's runner of p. The
// scenarios that fail at head run again with the base's runner: a failure
// that the base's runner has too is not this change's.
func runRunner(ctx context.Context, in *checks.Input, py *python, scratch string, p *runnerPrep) *runnerOutcome {
	out := p.out
	if p.headErr {
		return out
	}
	rc, rel, text := p.rc, p.rel, p.text
	dir := filepath.Join(scratch, "runner")
	file, err := writeRunner(filepath.Join(dir, "head"), rel, text)
	if err != nil {
		out.Err = err
		return out
	}
	timeout := defaultScenarioTimeout
	if t := in.Config.Pytest.Timeout.Duration; t > 0 && t < timeout {
		timeout = t
	}
	spec := specFor(rc, py.Path, file, timeout)
	list := scenarios()
	var src reuse
	out.Results, src, err = scenarioRuns.get(ctx, spec, py, filepath.Join(dir, "scenarios"), list)
	out.Reused = reusedNote(src, len(list))
	if err != nil {
		out.Err = fmt.Errorf("the runner scenarios could not run: %w", err)
		return out
	}
	out.Keys = compareKeys(ctx, in, py, p, out.Results, list, dir)
	var failing []scenario
	var at []int
	for i, r := range out.Results {
		if !r.Passed() {
			failing = append(failing, list[i])
			at = append(at, i)
		}
	}
	if len(failing) == 0 {
		return out
	}
	if p.baseNote != "" {
		out.BaseNote = p.baseNote
		return out
	}
	brc, btext := p.brc, p.btext
	out.Compared = true
	if p.same() {
		out.Same = true
		for _, i := range at {
			out.Results[i].Base, out.Results[i].PreExisting = "same runner", true
		}
		return out
	}
	bfile, err := writeRunner(filepath.Join(dir, "base"), rel, btext)
	if err != nil {
		out.BaseNote = fmt.Sprintf("The base's runner did not run: %v.", err)
		out.Compared = false
		return out
	}
	base, _, err := scenarioRuns.get(ctx, specFor(brc, py.Path, bfile, timeout), py, filepath.Join(dir, "base-scenarios"), failing)
	if err != nil {
		out.BaseNote = fmt.Sprintf("The base's runner did not run: %v.", err)
		out.Compared = false
		return out
	}
	for k, i := range at {
		judgeBase(&out.Results[i], base[k])
	}
	return out
}

// judgeBase compares a scenario that fails at head with the base's run.
func judgeBase(head *scenarioResult, base scenarioResult) {
	if base.Passed() {
		head.Base = "pass"
		return
	}
	head.Base = "fail"
	for _, p := range head.Problems {
		if !slices.Contains(base.Problems, p) {
			return
		}
	}
	head.PreExisting = true
}

// specFor is the run of one rendered runner with the config's contract.
func specFor(rc *config.Runner, py, file string, timeout time.Duration) runnerSpec {
	return runnerSpec{Python: py, Runner: file, Command: rc.RunCommand(), Result: rc.ResultFile(), Env: rc.RunEnv(),
		Regressed: rc.RegressedKey(), TestsRan: rc.TestsRanKey(), Timeout: timeout}
}

// sameRunner reports whether two runner settings run and read the same.
func sameRunner(a, b *config.Runner) bool {
	return a.Template == b.Template && a.RunCommand() == b.RunCommand() && a.ResultFile() == b.ResultFile() &&
		maps.Equal(a.RunEnv(), b.RunEnv()) && a.RegressedKey() == b.RegressedKey() && a.TestsRanKey() == b.TestsRanKey()
}

// renderRunner returns the runner of cfg at commit rev as production
// writes it: verbatim when the group copies the file (datasmith's adapter
// copies pytest_runner.py), else rendered with Python Jinja2 where
// installed (gonja otherwise) and the head config's render limits.
func renderRunner(ctx context.Context, in *checks.Input, cfg *config.Config, rc *config.Runner, rev string) (string, error) {
	text, _, err := renderRunnerRecord(ctx, in, cfg, rc, rev)
	return text, err
}

// renderRunnerRecord is renderRunner that also returns the engine that
// rendered the runner, nil when it was copied verbatim or not rendered.
// It renders once through rendertemplate.Render, with the head config's
// render limits also for the base's runner.
func renderRunnerRecord(ctx context.Context, in *checks.Input, cfg *config.Config, rc *config.Runner, rev string) (string, *jinja.Engine, error) {
	r, err := rendertemplate.Render(ctx, in.Plan.Trees, cfg, rc.Template, rev, rendertemplate.Options{Limits: &in.Config.Limits})
	switch {
	case errors.Is(err, rendertemplate.ErrName):
		return "", nil, fmt.Errorf("pytest.runner.template: %w", err)
	case errors.Is(err, rendertemplate.ErrRender):
		return "", r.Engine, fmt.Errorf("the runner template does not render: %w", err)
	case err != nil:
		return "", nil, err
	}
	return r.Text, r.Engine, nil
}

// writeRunner writes a rendered runner into dir under its file name.
func writeRunner(dir, rel, text string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, path.Base(rel))
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return "", err
	}
	return file, nil
}

// baseRev is the commit the base side renders at: the merge base.
func baseRev(in *checks.Input) string {
	if in.Plan.MergeBase != "" {
		return in.Plan.MergeBase
	}
	return in.Plan.Base
}

// reusedNote says where the head's scenario results come from.
func reusedNote(src reuse, n int) string {
	switch src {
	case fromMemory:
		return fmt.Sprintf("The %d runner scenarios did not run again. This process ran them less than %s ago with the same runner, settings and python, and they all passed.", n, scenarioTTL)
	case fromDisk:
		return fmt.Sprintf("The %d runner scenarios did not run again. They all passed in an earlier run with the same runner, settings, python and tool build. Their results come from the cache folder.", n)
	}
	return ""
}
