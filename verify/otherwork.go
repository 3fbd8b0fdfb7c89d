package verify

import (
	"slices"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// otherWork is a check that can have work when no template changed: the
// archive check when a dataset archive changed, the release ledger on a
// release merge.
type otherWork interface {
	HasWork(p *plan.Plan, base, head *config.Config) bool
}

// anyOtherWork reports whether a check of build (DefaultChecks when nil),
// among only when it is not empty, has work in a plan without templates.
// base is the base's configuration (nil when none decodes), cfg the one
// the checks run with.
func anyOtherWork(p *plan.Plan, base, cfg *config.Config, build func() []checks.Check, only []string) bool {
	if build == nil {
		build = DefaultChecks
	}
	for _, c := range build() {
		if len(only) > 0 && !slices.Contains(only, c.Name()) || cfg.Disabled(c.Name()) {
			continue
		}
		if w, ok := c.(otherWork); ok && w.HasWork(p, base, cfg) {
			return true
		}
	}
	return false
}

// noTemplateWork returns the skipped result of a check that has nothing to
// do because no template changed; ok is false when the check has work.
func noTemplateWork(c checks.Check, p *plan.Plan, base, cfg *config.Config) (checks.Result, bool) {
	if !p.Empty() {
		return checks.Result{}, false
	}
	if w, ok := c.(otherWork); ok && w.HasWork(p, base, cfg) {
		return checks.Result{}, false
	}
	return checks.Result{Check: c.Name(), Conclusion: checks.Skipped, Title: "No template changed",
		Summary: "The check has nothing to verify: this change touches no template."}, true
}
