package verify

import (
	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
)

// DefaultChecks returns the checks of a verification, in report order.
func DefaultChecks() []checks.Check {
	return []checks.Check{
		render.New(),
	}
}
