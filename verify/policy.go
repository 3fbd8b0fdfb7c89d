package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// Policy is everything that decides the gate and bounds a run: the gated
// branches, pre_existing, restore.refusal_exit (where the base sets it),
// the time limits of the checks and the limits block. It is read at the
// base commit, which the pull request cannot change; the head's
// configuration can tighten a limit, never lift it.
// The Action, the App and Run read it through GatePolicy alone.
type Policy struct {
	Rev    string // the commit it was read at
	Source string // the configuration file, or "(defaults)"
	// Branches are the gated branch globs; nil when Err is set.
	Branches []string
	// Config is the base's configuration; the defaults when Err is set.
	Config *config.Config
	// Err says why the base's configuration could not be read. The gate
	// then applies to every branch: an unknown policy fails closed.
	Err error
}

// GatePolicy reads the policy at rev (the base commit) of the repository
// in dir. path is the configuration file; empty means config.Path. It
// never fails: an error is kept in Policy.Err.
func GatePolicy(ctx context.Context, dir, rev, path string) Policy {
	if path == "" {
		path = config.Path
	}
	pol := Policy{Rev: rev, Source: path}
	repo := gitx.Repo{Dir: dir}
	sha, err := repo.Resolve(ctx, rev)
	var cfg *config.Config
	if err == nil {
		cfg, err = LoadConfigAt(ctx, repo, sha, path)
	}
	if err != nil {
		pol.Err = fmt.Errorf("the base's configuration: %w", err)
		pol.Config = config.Default()
		return pol
	}
	pol.Config, pol.Source, pol.Branches = cfg, cfg.Source, cfg.Gate.Branches
	return pol
}

// Gate is the gate's input for a pull request into baseRef (a branch
// name) under this policy: the Action, the App and LedgerVerify build it
// here alone.
func (p Policy) Gate(baseRef string) checks.Gate {
	return checks.Gate{BaseRef: baseRef, Branches: p.Branches, PolicyErr: p.Err}
}

// Bounds of every check's time limit, whatever a configuration says.
const (
	MinCheckTimeout = 10 * time.Second
	MaxCheckTimeout = 2 * time.Hour
)

// Limit is the time limit a check runs with: the head's value, at most
// the base's and at least MinCheckTimeout. Zero means "no limit" in a
// configuration, which is the base's limit for the head and
// MaxCheckTimeout for the base.
func (p Policy) Limit(head *config.Config, check string) time.Duration {
	return limitOf(head.Timeout(check), p.Config.Timeout(check))
}

func limitOf(head, base time.Duration) time.Duration {
	ceiling := base
	if ceiling <= 0 || ceiling > MaxCheckTimeout {
		ceiling = MaxCheckTimeout
	}
	ceiling = max(ceiling, MinCheckTimeout)
	switch {
	case head <= 0 || head > ceiling:
		return ceiling
	case head < MinCheckTimeout:
		return MinCheckTimeout
	}
	return head
}

// tighter returns the smaller of each limit: the head can tighten the
// base's limits, never lift them.
func tighter(head, base config.Limits) config.Limits {
	return config.Limits{
		RenderOutput: min(head.RenderOutput, base.RenderOutput),
		RenderMemory: min(head.RenderMemory, base.RenderMemory),
		RenderTime:   config.Duration{Duration: min(head.RenderTime.Duration, base.RenderTime.Duration)},
		Templates:    min(head.Templates, base.Templates),
		VarSets:      min(head.VarSets, base.VarSets),
		RandomSets:   min(head.RandomSets, base.RandomSets),
	}
}
