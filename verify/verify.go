// Package verify runs one verification: it reads the configuration at head
// and base, plans what changed, runs the checks concurrently and builds the
// report. The CLI, the Action and the App all call Run.
//
// Run is three steps, each in its own file: the effective configuration
// (effective.go: the head's configuration widened by the base's, with the
// policy read at the base), the selection of the checks (selection.go:
// which run and why the others do not) and the run (run.go).
package verify

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/report"
)

// Options says what to verify.
type Options struct {
	RepoDir string
	Base    string
	Head    string
	// ConfigPath is the repository path of the config file; empty means
	// config.Path (.github/template-verify.yml).
	ConfigPath string
	// RepoName is shown in the report; empty uses the folder name.
	RepoName string
	// Command is the command line that reproduces the run, shown in the
	// report; empty builds one from the options.
	Command string
	// Checks builds the checks to run; nil uses DefaultChecks.
	Checks func() []checks.Check
	// Only, when not empty, names the checks to run; the others are
	// reported as skipped.
	Only     []string
	Progress checks.Progress
	Log      *slog.Logger
	// Description is the pull request's body (markdown) for the
	// description check; empty means none (the check is skipped).
	Description string
	// DumpRenders, when set, is a folder where the render check writes
	// every rendered byte of record (render.DumpTo).
	DumpRenders string
	// Sandbox is where code from the pull request runs: auto, bwrap,
	// landlock or none (sandbox.WithMode); empty keeps ctx's mode, auto
	// when ctx has none.
	Sandbox string
	// CacheDir is a folder that keeps the results of work whose inputs
	// did not change, for later runs (resultcache); empty keeps ctx's,
	// none when ctx has none.
	CacheDir string
}

// UsageError is a problem with the input (not a git repository, an unknown
// revision, a bad configuration): the CLI exits 2 on it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Run verifies the change from Base to Head and returns the report. It
// returns a *UsageError for bad input; any other error is internal.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	rep, _, err := run(ctx, opts)
	return rep, err
}

// run is Run that also returns the policy read at the base, which decides
// the gate (LedgerVerify judges with it). The policy is read once, in
// effectiveConfig.
func run(ctx context.Context, opts Options) (*report.Report, Policy, error) {
	start := time.Now()
	ctx, err := sandbox.WithMode(ctx, opts.Sandbox)
	if err != nil {
		return nil, Policy{}, &UsageError{Err: err}
	}
	if opts.CacheDir != "" {
		ctx = resultcache.WithRoot(ctx, opts.CacheDir)
	}
	in, err := readInputs(ctx, opts)
	if err != nil {
		return nil, Policy{}, err
	}
	// The plan's git cat-file process ends with the run, not 15 s later
	// or when the tool exits.
	if in.plan.Trees != nil {
		defer in.plan.Trees.Close()
	}
	rep := newReport(opts, in)
	eff, err := effectiveConfig(ctx, in)
	if err != nil {
		return nil, Policy{}, err
	}
	rep.Templates = in.plan.Templates
	rep.Notes = append(rep.Notes, eff.notes...)
	if in.plan.Empty() && len(eff.uncovered) == 0 && !anyOtherWork(in.plan, eff.base, eff.config, opts.Checks, opts.Only) {
		rep.Overall = checks.Success
		rep.Notes = append(rep.Notes, fmt.Sprintf("No template changed between %s and %s, so there is nothing to verify.", opts.Base, opts.Head))
		rep.Duration = time.Since(start)
		return rep, eff.policy, nil
	}
	sel, err := selectChecks(ctx, opts, in, eff)
	if err != nil {
		return nil, Policy{}, err
	}
	rep.Notes = append(rep.Notes, sel.notes...)
	if err := runSelected(ctx, opts, in, eff, sel, rep); err != nil {
		return nil, Policy{}, err
	}
	rep.Duration = time.Since(start)
	return rep, eff.policy, nil
}

// newReport is the report's header: what was verified, and how to do it
// again.
func newReport(opts Options, in *inputs) *report.Report {
	rep := &report.Report{
		Repo:         opts.RepoName,
		BaseRev:      opts.Base,
		HeadRev:      opts.Head,
		Base:         in.plan.Base,
		Head:         in.plan.Head,
		MergeBase:    in.plan.MergeBase,
		ConfigSource: in.head.Source,
		Command:      opts.Command,
	}
	if rep.Repo == "" {
		rep.Repo = filepath.Base(absPath(opts.RepoDir))
	}
	if rep.Command == "" {
		rep.Command = Command(opts)
	}
	return rep
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
