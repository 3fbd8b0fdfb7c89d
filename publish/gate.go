package publish

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/report"
)

// GateCheck is the check name of the gate; its check run is
// "template-verify / gate".
const GateCheck = "gate"

// Gate says which pull requests the gate applies to.
type Gate struct {
	// BaseRef is the branch the pull request merges into ("main" or
	// "refs/heads/main").
	BaseRef string
	// Branches are the gated branch globs (config.Gate.Branches), read
	// at the base (verify.GatePolicy).
	Branches []string
	// PolicyErr says why the gated branches could not be read at the
	// base. The gate then applies whatever the branch: an unknown policy
	// fails closed.
	PolicyErr error
	// Untrusted is set when pull-request code made the results (a fork's
	// own job uploaded the report): the gate then never passes from them.
	Untrusted *Untrusted
}

// Applies reports whether the gate applies to the base branch. It does
// when the gated branches are unknown.
func (g Gate) Applies() bool {
	if g.PolicyErr != nil {
		return true
	}
	ref := g.branch()
	if ref == "" {
		return false
	}
	for _, b := range g.Branches {
		if config.MatchGlob(b, ref) {
			return true
		}
	}
	return false
}

func (g Gate) branch() string { return strings.TrimPrefix(g.BaseRef, "refs/heads/") }

// GateOutcome is the conclusion and output of the gate check run.
type GateOutcome struct {
	Conclusion string // success, failure, skipped, or action_required (Gate.Untrusted)
	Title      string
	Summary    string
}

// GateOf decides the gate. It fails when any check failed, timed out, did
// not run or was cancelled; it passes when every check passed or was
// skipped. For a base branch that is not gated it is skipped.
func GateOf(results []checks.Result, g Gate) GateOutcome {
	out := g.distrust(gateOf(results, g))
	if g.PolicyErr != nil {
		out.Summary += "\n\nThe gate applies because template-verify could not read the gated branches at the base: " + prose(g.PolicyErr.Error())
	}
	return out
}

func gateOf(results []checks.Result, g Gate) GateOutcome {
	if !g.Applies() {
		return GateOutcome{Conclusion: "skipped", Title: "The gate does not apply to this branch", Summary: gateSkipReason(g)}
	}
	var blocking []string
	for _, r := range results {
		if r.Conclusion != checks.Success && r.Conclusion != checks.Skipped {
			blocking = append(blocking, fmt.Sprintf("- %s: %s", code(r.Check), report.Word(r.Conclusion)))
		}
	}
	branch := code(g.branch())
	if g.branch() == "" {
		branch = "the base branch"
	}
	if len(blocking) > 0 {
		return GateOutcome{
			Conclusion: "failure",
			Title:      CutChars(fmt.Sprintf("%s of %d block the merge", plural(len(blocking), "check", "checks"), len(results)), MaxTitleChars),
			Summary: fmt.Sprintf("The gate fails for pull requests into %s when a check fails, times out or does not run. These checks block the merge:\n\n%s",
				branch, strings.Join(blocking, "\n")),
		}
	}
	if len(results) == 0 {
		return GateOutcome{Conclusion: "success", Title: "No template changed", Summary: fmt.Sprintf("No template changed, so no check blocks the merge into %s.", branch)}
	}
	return GateOutcome{
		Conclusion: "success",
		Title:      "Every check passed or was skipped",
		Summary:    fmt.Sprintf("Every check passed or was skipped, so no check blocks the merge into %s.", branch),
	}
}

func gateSkipReason(g Gate) string {
	if g.branch() == "" {
		return "No base branch is known, so the gate does not apply."
	}
	var globs []string
	for _, b := range g.Branches {
		globs = append(globs, code(b))
	}
	if len(globs) == 0 {
		return fmt.Sprintf("The configuration names no gated branch, so the gate does not apply to %s.", code(g.branch()))
	}
	return fmt.Sprintf("The base branch %s matches none of the gated branches (%s), so the gate does not apply.", code(g.branch()), strings.Join(globs, ", "))
}
