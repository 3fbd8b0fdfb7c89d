package verify

import (
	"context"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/rendercode"
)

// effective is the configuration the checks run with and what it was made
// from: the first step of Run.
type effective struct {
	// config is the head's configuration widened by the base's (widen),
	// with what decides the gate and bounds the run taken from the base.
	config *config.Config
	// base is the configuration at the merge base (what the pull request
	// changes); nil when it does not decode.
	base *config.Config
	// policy is read at the base itself, which the pull request cannot
	// change: it decides the gate and bounds the time limits.
	policy Policy
	// scope is the warning that the head changes what is verified; nil
	// when it does not.
	scope *checks.Finding
	// uncovered are the changed files that look like templates and that
	// no group covers.
	uncovered []string
	// notes lead the report's notes, in order.
	notes []string
}

// effectiveConfig reads the base's configuration and policy and widens the
// head's configuration with them, so that the head cannot take a changed
// template, a matrix value, a suite or a limit out of the verification.
func effectiveConfig(ctx context.Context, in *inputs) (*effective, error) {
	p, cfg := in.plan, in.head
	e := &effective{}
	var notes []string
	baseCfg, baseErr := LoadConfigAt(ctx, in.repo, p.MergeBase, in.cfgPath)
	if baseErr != nil {
		notes = append(notes, "The base configuration does not decode, so the report shows no policy change: "+baseErr.Error())
		baseCfg = nil
	}
	e.base = baseCfg
	e.policy = GatePolicy(ctx, in.repo.Dir, p.Base, in.cfgPath)
	if e.policy.Err != nil && baseErr == nil {
		notes = append(notes, "The configuration at the base does not decode, so the time limits are the defaults: "+e.policy.Err.Error())
	}
	selectors := []*config.Config{baseCfg, e.policy.Config}
	if baseCfg == nil {
		selectors[0] = rendercode.Config(ctx, in.repo, p.MergeBase)
	}
	eff, added, dropped, err := widen(ctx, p, cfg, selectors...)
	if err != nil {
		return nil, err
	}
	// What decides the gate and bounds the run comes from the base.
	eff.PreExisting = e.policy.Config.PreExisting
	eff.Limits = tighter(cfg.Limits.Effective(), e.policy.Config.Limits.Effective())
	if br := e.policy.Config.Restore; eff.Restore != nil && br != nil && br.RefusalExitRule() != config.RefusalExitAny {
		// The base judges the exit code of a refusal: the head can only
		// ask for a judgment where the base has none.
		r := *eff.Restore
		r.RefusalExit = br.RefusalExit
		eff.Restore = &r
	}
	e.config = eff
	changes := dropped
	if baseCfg != nil {
		changes = append(scopeChanges(baseCfg, cfg), dropped...)
	}
	scope, note := scopeFinding(changes, added, cfg.Source)
	e.scope = scope
	if note != "" {
		notes = append([]string{note}, notes...)
	}
	e.notes = append(notes, rendercode.Where(cfg)...)
	// Files that look like templates and that no group covers are never
	// a silent pass: the render result says "not run" and names them.
	e.uncovered = uncovered(ctx, p, eff, baseCfg, e.policy.Config)
	return e, nil
}
