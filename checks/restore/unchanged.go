// The result of a PR that leaves the restore step as it was: the step and
// its settings render to the same bytes at base and head, so no scenario
// can show anything this change did, and none runs.

package restore

import (
	"encoding/json"
	"fmt"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// sameStepRuns reports whether the head's step as the check runs it and
// the base's (renderBaseStep), rendered as production renders them on the
// same fixture, run the same. With sameAtBase (every variable set of the
// template) it decides that a step did not change: both must agree, and
// a base that cannot render (nil) runs the scenarios.
func sameStepRuns(step, base *Step) bool {
	if base == nil {
		return false
	}
	head, err := json.Marshal(whatRuns(step))
	if err != nil {
		return false
	}
	was, err := json.Marshal(whatRuns(base))
	return err == nil && string(head) == string(was)
}

// runs is the part of a Step that decides what a scenario does: the
// script or command, its paths, report and settings. Where the section
// sits in its template (lines, the template's text) is left out, so that
// a refactor that moves the step and renders the same runs nothing.
type runs struct {
	Script, Command, ScriptName string
	Paths                       config.RestorePaths
	Report                      string
	Prelude                     Prelude
	PreludeErr, RefusalExit     string
	FallsBack                   bool
}

func whatRuns(s *Step) runs {
	return runs{Script: s.Script, Command: s.Command, ScriptName: s.ScriptName, Paths: s.Paths, Report: s.Report,
		Prelude: s.Prelude, PreludeErr: s.PreludeErr, RefusalExit: s.RefusalExit, FallsBack: s.FallsBack}
}

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
