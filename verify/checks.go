package verify

import (
	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/archive"
	"github.com/formula-code/template-verify/checks/description"
	"github.com/formula-code/template-verify/checks/names"
	pytestcheck "github.com/formula-code/template-verify/checks/pytest"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/checks/restore"
	"github.com/formula-code/template-verify/checks/synccheck"
	"github.com/formula-code/template-verify/checks/taint"
)

// DefaultChecks returns the checks of a verification, in report order.
func DefaultChecks() []checks.Check {
	return []checks.Check{
		render.New(),
		restore.New(),
		pytestcheck.New(),
		synccheck.New(),
		names.New(),
		archive.New(),
		ledgerCheck(),
		taint.New(),
		description.New(),
	}
}
