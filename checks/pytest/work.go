package pytest

import (
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// HasWork reports whether a change that touches no template still gives
// the check work: it changes a file that production copies verbatim (a
// group's copy list), and that file matches the triggers of a suite or is
// under the runner's group root. Copied files are never rendered, so they
// are never in the plan's templates; their tests still run.
func (*Check) HasWork(p *plan.Plan, _, cfg *config.Config) bool {
	if cfg.Pytest == nil {
		return false
	}
	var copied []string
	for _, path := range p.ChangedPaths() {
		if g, rel, ok := cfg.GroupOf(path); ok && g.Copied(rel) {
			copied = append(copied, path)
		}
	}
	if len(copied) == 0 {
		return false
	}
	for _, s := range cfg.Pytest.Suites {
		if triggered(s, copied) {
			return true
		}
	}
	on, _ := runnerTriggered(cfg, copied)
	return on && cfg.Pytest.Runner != nil
}
