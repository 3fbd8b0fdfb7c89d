package pytest

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// Name is the check's name in reports and config keys.
const Name = "pytest"

// Check is the pytest check.
type Check struct{}

// New returns the pytest check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// Run implements checks.Check. Whether the config turns the check off is
// verify's decision (a check the head turns off never runs); a config
// without a pytest block here is a caller's mistake, and never a pass.
func (*Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	cfg := in.Config.Pytest
	if cfg == nil {
		res.Conclusion = checks.NotRun
		res.Title = "The pytest check has no pytest block to run"
		res.Summary = "The configuration has no pytest block, so no pytest suite ran."
		return res
	}
	changed := in.Plan.ChangedPaths()
	var suites []config.Suite
	for _, s := range cfg.Suites {
		if triggered(s, changed) {
			suites = append(suites, s)
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("The pytest suite %s did not run: no changed path matches its triggers.", s.Name))
		}
	}
	runnerOn, runnerNote := runnerTriggered(in.Config, changed)
	if runnerNote != "" {
		res.Notes = append(res.Notes, runnerNote)
	}
	if len(suites) == 0 && !runnerOn {
		res.Conclusion = checks.Skipped
		res.Title = "No pytest suite matches the changed files"
		res.Summary = "No changed path matches the triggers of a pytest suite, and the runner template did not change."
		return res
	}
	scratch, err := os.MkdirTemp(in.WorkDir, "pytest-")
	if err != nil {
		return internalError(res, err)
	}
	// The runner renders at head and base while the python is looked for:
	// neither needs the other, and both take a Python start.
	var (
		prep     *runnerPrep
		prepDone = make(chan struct{})
	)
	go func() {
		defer close(prepDone)
		if runnerOn {
			prep = prepareRunner(ctx, in)
		}
	}()
	py, err := findPython(ctx, cfg.Python, scratch)
	<-prepDone
	if prep != nil {
		if same, note := prep.unchanged(); same {
			runnerOn = false
			res.Notes = append(res.Notes, note)
			if len(suites) == 0 {
				res.Conclusion = checks.Skipped
				res.Title = "The runner did not change and no pytest suite matches the changed files"
				res.Summary = note
				return res
			}
		}
	}
	if err != nil {
		res.Conclusion = checks.NotRun
		res.Title = "No python with pytest"
		res.Summary = "The check found no python that can import pytest, so no pytest suite ran. Set pytest.python in the config."
		res.Notes = append(res.Notes, err.Error())
		return res
	}
	res.Notes = append(res.Notes, fmt.Sprintf("pytest %s ran with %s.", py.Pytest, py.Path))
	r := &runner{py: py, scratch: scratch}
	co := &checkouts{repo: gitx.Repo{Dir: in.Repo}, head: in.Plan.Head, base: in.Plan.MergeBase, dir: scratch}

	var (
		wg         sync.WaitGroup
		suiteRes   []suiteResult
		suiteNotes []string
		scen       *runnerOutcome
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for _, s := range suites {
			sr, reused := cachedSuite(ctx, r, co, s, cfg.Timeout.Duration, config.PreExistingFails(in.BaseConfig, in.Config))
			if reused {
				suiteNotes = append(suiteNotes, reusedSuiteNote(s.Name))
			}
			suiteRes = append(suiteRes, sr)
		}
	}()
	go func() {
		defer wg.Done()
		if runnerOn {
			scen = runRunner(ctx, in, py, scratch, prep)
		}
	}()
	wg.Wait()
	res.Notes = append(res.Notes, suiteNotes...)
	if scen != nil && scen.Reused != "" {
		res.Notes = append(res.Notes, scen.Reused)
	}
	return applyKeys(assemble(ctx, res, suiteRes, scen), scen)
}

// triggered reports whether a changed path matches one of the suite's
// triggers.
func triggered(s config.Suite, changed []string) bool {
	for _, p := range changed {
		for _, t := range s.Triggers {
			if config.MatchGlob(t, p) {
				return true
			}
		}
	}
	return false
}

// runnerTriggered reports whether the runner scenarios run: the config
// names a runner, and a file under its template folder or the config file
// changed. The note says why they do not run.
func runnerTriggered(cfg *config.Config, changed []string) (bool, string) {
	rc := cfg.Pytest.Runner
	if rc == nil {
		return false, ""
	}
	g, _, err := cfg.ResolveTemplate(rc.Template)
	if err != nil {
		return true, "" // runRunner reports the error
	}
	root := strings.TrimSuffix(g.Root, "/") + "/"
	for _, p := range changed {
		if strings.HasPrefix(p, root) || p == config.Path {
			return true, ""
		}
	}
	return false, fmt.Sprintf("The runner scenarios did not run: no file under %s and not %s changed.", path.Clean(root), config.Path)
}

func internalError(res checks.Result, err error) checks.Result {
	res.Conclusion = checks.Failure
	res.Title = "The pytest check stopped with an error"
	res.Summary = err.Error()
	return res
}
