package checks

import (
	"strings"

	"github.com/formula-code/template-verify/config"
)

// GateCheck is the check name of the gate; its check run is
// "template-verify / gate".
const GateCheck = "gate"

// Gate is what decides the gate of one pull request besides the results:
// the branch it merges into, the gated branches read at the base
// (verify.GatePolicy), and whether the results can be trusted.
type Gate struct {
	// BaseRef is the branch the pull request merges into ("main" or
	// "refs/heads/main").
	BaseRef string
	// Branches are the gated branch globs (config.Gate.Branches), read
	// at the base.
	Branches []string
	// PolicyErr says why the gated branches could not be read at the
	// base. The gate then applies whatever the branch: an unknown policy
	// fails closed.
	PolicyErr error
	// Untrusted is set when pull-request code made the results (a fork's
	// own job uploaded the report): the gate then never passes from them.
	Untrusted bool
	// AnyBranch makes the gate apply whatever the branch. The ledger's
	// re-verification of a merged pull request (verify.LedgerVerify) asks
	// whether its results pass the gate and knows no branch.
	AnyBranch bool
}

// Branch is the base branch without "refs/heads/".
func (g Gate) Branch() string { return strings.TrimPrefix(g.BaseRef, "refs/heads/") }

// Applies reports whether the gate applies to the base branch. It does
// when the gated branches are unknown.
func (g Gate) Applies() bool { return g.notGated() == "" }

// notGated says why the gate does not apply, or "" when it does.
func (g Gate) notGated() NotGated {
	switch {
	case g.PolicyErr != nil, g.AnyBranch:
		return ""
	case g.Branch() == "":
		return NotGatedNoBranch
	case len(g.Branches) == 0:
		return NotGatedNoBranches
	}
	for _, b := range g.Branches {
		if config.MatchGlob(b, g.Branch()) {
			return ""
		}
	}
	return NotGatedNoMatch
}

// GateConclusion is the conclusion of the gate's check run, in GitHub's
// words. It is never neutral: GitHub counts neutral as passed.
type GateConclusion string

const (
	GatePassed  GateConclusion = "success"
	GateFailed  GateConclusion = "failure"
	GateSkipped GateConclusion = "skipped"
	// GateActionRequired blocks the merge (GitHub does not count it as
	// passed): the results passed, but pull-request code made them.
	GateActionRequired GateConclusion = "action_required"
)

// NotGated is why the gate does not apply to a branch.
type NotGated string

const (
	NotGatedNoBranch   NotGated = "no_base_branch"    // no base branch is known
	NotGatedNoBranches NotGated = "no_gated_branches" // the configuration names none
	NotGatedNoMatch    NotGated = "no_match"          // the branch matches no gated glob
)

// Blocking is a check that blocks the merge, with its conclusion.
type Blocking struct {
	Check      string
	Conclusion Conclusion
}

// GateVerdict is the gate's decision as data; package report words it.
type GateVerdict struct {
	Conclusion GateConclusion
	Branch     string   // the base branch, "" when unknown
	Branches   []string // the gated branch globs
	Checks     int      // the results the gate weighed
	Blocking   []Blocking
	// NotGated says why the gate does not apply ("" when it does).
	NotGated NotGated
	// PolicyErr is why the gated branches are unknown; the gate then
	// applies.
	PolicyErr error
	// Untrusted is set when it turned a pass into GateActionRequired.
	Untrusted bool
}

// GateOf decides the gate. It fails when any check failed, timed out, did
// not run or was cancelled (any conclusion but Success and Skipped); it
// passes when every check passed or was skipped. For a base branch that is
// not gated it is skipped. Untrusted results never pass: a pass becomes
// GateActionRequired, a failure stays a failure, and a branch that is not
// gated stays skipped (the gated branches come from the base, not from the
// results).
func GateOf(results []Result, g Gate) GateVerdict {
	v := GateVerdict{Branch: g.Branch(), Branches: g.Branches, Checks: len(results), NotGated: g.notGated(), PolicyErr: g.PolicyErr}
	if v.NotGated != "" {
		v.Conclusion = GateSkipped
		return v
	}
	for _, r := range results {
		if r.Conclusion != Success && r.Conclusion != Skipped {
			v.Blocking = append(v.Blocking, Blocking{Check: r.Check, Conclusion: r.Conclusion})
		}
	}
	switch {
	case len(v.Blocking) > 0:
		v.Conclusion = GateFailed
	case g.Untrusted:
		v.Conclusion, v.Untrusted = GateActionRequired, true
	default:
		v.Conclusion = GatePassed
	}
	return v
}
