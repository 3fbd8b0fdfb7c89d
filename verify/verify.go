// Package verify runs one verification: it reads the configuration at head
// and base, plans what changed, runs the checks concurrently and builds the
// report. The CLI, the Action and the App all call Run.
package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/rendercode"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
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
}

// UsageError is a problem with the input (not a git repository, an unknown
// revision, a bad configuration): the CLI exits 2 on it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Run verifies the change from Base to Head and returns the report. It
// returns a *UsageError for bad input; any other error is internal.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	start := time.Now()
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	repo := gitx.Repo{Dir: opts.RepoDir}
	if st, err := os.Stat(opts.RepoDir); err != nil || !st.IsDir() {
		return nil, &UsageError{fmt.Errorf("%s is not a folder", opts.RepoDir)}
	}
	if !repo.IsRepo(ctx) {
		return nil, &UsageError{fmt.Errorf("%s is not a git repository", opts.RepoDir)}
	}
	head, err := repo.Resolve(ctx, opts.Head)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("head: %w", err)}
	}
	cfgPath := opts.ConfigPath
	if cfgPath == "" {
		cfgPath = config.Path
	}
	if cfgPath != config.Path {
		// A file the user names must be there: a typo must not verify
		// with the defaults.
		if _, ok, err := repo.ReadFile(ctx, head, cfgPath); err != nil {
			return nil, &UsageError{fmt.Errorf("read %s at %s: %w", cfgPath, short(head), err)}
		} else if !ok {
			return nil, &UsageError{fmt.Errorf("the configuration file %s is not in the repository at %s", cfgPath, opts.Head)}
		}
	}
	cfg, err := LoadConfigAt(ctx, repo, head, cfgPath)
	if err != nil {
		return nil, &UsageError{err}
	}
	p, err := plan.Build(ctx, repo, cfg, opts.Base, opts.Head)
	if err != nil {
		return nil, &UsageError{err}
	}
	rep := &report.Report{
		Repo:         opts.RepoName,
		BaseRev:      opts.Base,
		HeadRev:      opts.Head,
		Base:         p.Base,
		Head:         p.Head,
		MergeBase:    p.MergeBase,
		ConfigSource: cfg.Source,
		Command:      opts.Command,
	}
	if rep.Repo == "" {
		rep.Repo = filepath.Base(absPath(opts.RepoDir))
	}
	if rep.Command == "" {
		rep.Command = Command(opts)
	}
	// The base's configuration: at the merge base (what the PR changes)
	// and at the base itself (the policy, which the PR cannot change).
	baseCfg, baseErr := LoadConfigAt(ctx, repo, p.MergeBase, cfgPath)
	if baseErr != nil {
		rep.Notes = append(rep.Notes, "The base configuration does not decode, so the report shows no policy change: "+baseErr.Error())
		baseCfg = nil
	}
	policy := GatePolicy(ctx, opts.RepoDir, p.Base, cfgPath)
	if policy.Err != nil && baseErr == nil {
		rep.Notes = append(rep.Notes, "The configuration at the base does not decode, so the time limits are the defaults: "+policy.Err.Error())
	}
	selectors := []*config.Config{baseCfg, policy.Config}
	if baseCfg == nil {
		selectors[0] = rendercode.Config(ctx, repo, p.MergeBase)
	}
	eff, added, dropped, err := widen(ctx, p, cfg, selectors...)
	if err != nil {
		return nil, err
	}
	// What decides the gate and bounds the run comes from the base.
	eff.PreExisting = policy.Config.PreExisting
	eff.Limits = tighter(cfg.Limits.Effective(), policy.Config.Limits.Effective())
	if br := policy.Config.Restore; eff.Restore != nil && br != nil && br.RefusalExitRule() != config.RefusalExitAny {
		// The base judges the exit code of a refusal: the head can only
		// ask for a judgment where the base has none.
		r := *eff.Restore
		r.RefusalExit = br.RefusalExit
		eff.Restore = &r
	}
	rep.Templates = p.Templates
	changes := dropped
	if baseCfg != nil {
		changes = append(scopeChanges(baseCfg, cfg), dropped...)
	}
	scope, note := scopeFinding(changes, added, cfg.Source)
	if note != "" {
		rep.Notes = append([]string{note}, rep.Notes...)
	}
	rep.Notes = append(rep.Notes, rendercode.Where(cfg)...)
	// Files that look like templates and that no group covers are never
	// a silent pass: the render result says "not run" and names them.
	notCovered := uncovered(ctx, p, eff, baseCfg, policy.Config)
	if p.Empty() && len(notCovered) == 0 && !anyOtherWork(p, baseCfg, eff, opts.Checks, opts.Only) {
		rep.Overall = checks.Success
		rep.Notes = append(rep.Notes, fmt.Sprintf("No template changed between %s and %s, so there is nothing to verify.", opts.Base, opts.Head))
		rep.Duration = time.Since(start)
		return rep, nil
	}
	work, err := os.MkdirTemp("", "template-verify-")
	if err != nil {
		return nil, fmt.Errorf("work folder: %w", err)
	}
	defer os.RemoveAll(work)
	in := &checks.Input{Repo: opts.RepoDir, Plan: p, Config: eff, BaseConfig: baseCfg, WorkDir: work, Log: log, Description: opts.Description}
	build := opts.Checks
	if build == nil {
		build = DefaultChecks
	}
	if err := checkNames(opts.Only, build()); err != nil {
		return nil, &UsageError{err}
	}
	var run []checks.Check
	var results []checks.Result
	var disabled []checks.Result
	for _, c := range build() {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, c.Name()) {
			disabled = append(disabled, checks.Result{
				Check: c.Name(), Conclusion: checks.Skipped,
				Title:   "Not selected with --only",
				Summary: "The check did not run because the command line selects other checks.",
			})
			continue
		}
		if r, skip := noTemplateWork(c, p, baseCfg, eff); skip {
			disabled = append(disabled, r)
			continue
		}
		if cfg.Disabled(c.Name()) {
			disabled = append(disabled, disabledResult(c.Name(), cfg, baseRan(ctx, repo, p.MergeBase, baseCfg, c.Name())))
			continue
		}
		run = append(run, c)
		rep.Notes = append(rep.Notes, limitNote(policy, cfg, c.Name())...)
	}
	render.DumpTo(run, opts.DumpRenders)
	runner := &checks.Runner{Timeout: func(check string) time.Duration { return policy.Limit(cfg, check) }, Progress: opts.Progress}
	results = append(runner.Run(ctx, in, run), disabled...)
	results = markUncovered(results, notCovered, cfgPath)
	attachScope(results, scope)
	rep.Results = results
	rep.Overall = checks.Overall(results)
	rep.Notes = append(rep.Notes, sandbox.Describe())
	rep.Duration = time.Since(start)
	return rep, nil
}

// disabledResult reports a check that the head's config turns off. When the
// base ran it, this PR turns it off: that is "not run", so the gate fails
// and a reviewer sees it. Otherwise the check is skipped.
func disabledResult(name string, head *config.Config, baseRan bool) checks.Result {
	if baseRan {
		return checks.Result{
			Check: name, Conclusion: checks.NotRun,
			Title:   "This PR turns the check off",
			Summary: fmt.Sprintf("The head's %s turns %s off (checks.disable or a null block), but the base does not. The check did not run.", head.Source, name),
		}
	}
	return checks.Result{
		Check: name, Conclusion: checks.Skipped,
		Title:   "The config turns this check off",
		Summary: fmt.Sprintf("The check did not run because %s turns it off (checks.disable or a null block).", head.Source),
	}
}

// baseRan reports whether the base runs the check. A base whose
// configuration does not decode counts as running every check (fail
// closed). A base without a configuration file ran the defaults, which
// fit the datasmith layout: there a check ran only when the files the
// defaults name for it are at the base. So a PR that adds the file for
// the first time is verified with its own configuration, unless the
// defaults applied.
func baseRan(ctx context.Context, repo gitx.Repo, rev string, base *config.Config, name string) bool {
	switch {
	case base == nil:
		return true
	case base.Disabled(name):
		return false
	case name == "restore" && !base.Restore.Explicit && base.Source != config.Default().Source:
		// A config file with its own groups keeps the default restore
		// block, which names datasmith's group: where the groups have no
		// such group, the base ran no restore check of its own. (A step
		// the check finds elsewhere in the groups is not counted here.)
		_, _, err := base.ResolveTemplate(base.Restore.Template)
		return err == nil
	case base.Source != config.Default().Source:
		return true
	}
	exists := func(p string) bool {
		_, err := repo.Run(ctx, "cat-file", "-e", rev+":"+p)
		return err == nil
	}
	template := func(ref string) bool {
		g, rel, err := base.ResolveTemplate(ref)
		return err == nil && exists(path.Join(g.Root, rel))
	}
	switch name {
	case "restore":
		return template(base.Restore.Template)
	case "pytest":
		if r := base.Pytest.Runner; r != nil && template(r.Template) {
			return true
		}
		for _, s := range base.Pytest.Suites {
			if slices.ContainsFunc(s.Files, exists) {
				return true
			}
		}
		return false
	}
	return true
}

// limitNote says when the head asks for a time limit the base does not
// allow.
func limitNote(pol Policy, head *config.Config, check string) []string {
	d, ok := head.Checks.Timeouts[check]
	if !ok {
		return nil
	}
	if got := pol.Limit(head, check); got != d.Duration {
		return []string{fmt.Sprintf("The head's time limit of %s for the %s check is outside what the base allows (%s to %s); the check ran with %s.",
			d.Duration, check, MinCheckTimeout, limitOf(0, pol.Config.Timeout(check)), got)}
	}
	return nil
}

// Command is the command line that reproduces a run of opts.
func Command(opts Options) string {
	c := fmt.Sprintf("template-verify run --repo . --base %s --head %s", shellQuote(opts.Base), shellQuote(opts.Head))
	if opts.ConfigPath != "" && opts.ConfigPath != config.Path {
		c += " --config " + shellQuote(opts.ConfigPath)
	}
	if len(opts.Only) > 0 {
		c += " --only " + shellQuote(strings.Join(opts.Only, ","))
	}
	return c
}

// LoadConfig reads .github/template-verify.yml at rev, or returns the
// defaults when the file is not there.
func LoadConfig(ctx context.Context, repo gitx.Repo, rev string) (*config.Config, error) {
	return LoadConfigAt(ctx, repo, rev, config.Path)
}

// LoadConfigAt reads the config file at path (a repository path) at rev (a
// commit sha). When the file is not there, the configuration is derived
// from the render code at rev (rendercode.Config), with the built-in
// defaults as the fallback.
func LoadConfigAt(ctx context.Context, repo gitx.Repo, rev, path string) (*config.Config, error) {
	data, ok, err := repo.ReadFile(ctx, rev, path)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, err)
	}
	if !ok {
		return rendercode.Config(ctx, repo, rev), nil
	}
	cfg, err := config.Decode(path, data)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("configuration at %s: %w", short(rev), err)
		}
		return nil, err
	}
	return cfg, nil
}

// short is the shared short commit sha.
var short = words.Short

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@^~", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkNames reports a name in only that is not a check.
func checkNames(only []string, list []checks.Check) error {
	var names []string
	for _, c := range list {
		names = append(names, c.Name())
	}
	for _, n := range only {
		if !slices.Contains(names, n) {
			return fmt.Errorf("unknown check %q (checks: %s)", n, strings.Join(names, ", "))
		}
	}
	return nil
}
