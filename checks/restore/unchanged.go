// The result of a PR that leaves the restore step as it was: the step and
// its settings render to the same bytes at base and head, so no scenario
// can show anything this change did, and none runs.

package restore

import (
	"fmt"

	"github.com/formula-code/template-verify/checks"
)

// unchangedResult is res (which may hold notes already) concluded as
// skipped for a step that is the same at base and head in sets variable
// sets. It is skipped, not passed: nothing was run, and the reason says
// what was compared instead.
func unchangedResult(res checks.Result, step *Step, sets int) checks.Result {
	res.Conclusion = checks.Skipped
	res.Title = "The restore step did not change: no scenario ran"
	res.Summary = fmt.Sprintf("The restore step of %s and the restore settings render to the same bytes at base and head in %s, so this change cannot change what the step restores. No scenario ran: they run on a PR that changes the step, a file it includes, or the restore settings, and on every PR when the base config sets pre_existing: fail.",
		step.Template, plural(sets, "variable set", "variable sets"))
	res.Notes = append(res.Notes, engineNote("the restore step's template "+step.Template, step.Engine))
	res.Figures = append(res.Figures, checks.Figure{Label: "Restore scenarios", Value: fmt.Sprintf("not run: the step is the same bytes at base and head in %s", plural(sets, "variable set", "variable sets"))})
	return res
}
