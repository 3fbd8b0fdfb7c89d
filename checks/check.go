package checks

import (
	"context"
	"log/slog"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// Input is everything a check may read. It is shared by all checks of one
// run and must not be changed by them.
type Input struct {
	Repo   string         // path of the verified git repository (work tree or bare)
	Plan   *plan.Plan     // what changed and which templates to verify
	Config *config.Config // the head's configuration
	// BaseConfig is the base's configuration, for showing policy changes;
	// nil when the base has none that decodes.
	BaseConfig *config.Config
	// WorkDir is a private temporary folder for the whole run; checks make
	// sub-folders of it named after themselves.
	WorkDir string
	Log     *slog.Logger
	// Description is the pull request's body (markdown), for the
	// description check; empty when the run has none.
	Description string
}

// Check is one verification step.
type Check interface {
	// Name is the short stable name used in check-run names and config keys.
	Name() string
	// Run executes the check. It returns a Result even on error: an error
	// that stops the check becomes a Failure result that says why.
	Run(ctx context.Context, in *Input) Result
}
