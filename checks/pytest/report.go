package pytest

import (
	"context"
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/words"
)

// ScenarioTable is the title of the runner scenario table.
const ScenarioTable = "pytest runner scenarios"

// tally is what assemble counts over the suites and the runner scenarios.
type tally struct {
	failed, timedOut, notRun, suitesBefore, regressions, before, flaky int
	sandboxed, open                                                    int
	scenFailed, scenTotal, scenBefore                                  int
	lines                                                              []string // the summary's sentences
}

// assemble folds the suite and scenario results into the check result.
func assemble(ctx context.Context, res checks.Result, suites []suiteResult, scen *runnerOutcome) checks.Result {
	var t tally
	t.addSuites(&res, suites)
	if scen != nil {
		t.addScenarios(&res, scen)
	}
	if note := sandboxNote(ctx, t.sandboxed, t.open); note != "" {
		res.Notes = append(res.Notes, note)
	}
	res.Summary = strings.Join(t.lines, "\n")
	t.conclude(&res, len(suites), scen)
	return res
}

// addSuites adds each suite's figures, findings and summary sentence.
func (t *tally) addSuites(res *checks.Result, suites []suiteResult) {
	for _, s := range suites {
		res.Figures = append(res.Figures, s.Figures...)
		res.Findings = append(res.Findings, s.Findings...)
		t.regressions += s.Regressions
		t.before += s.Before
		t.flaky += s.Flaky
		countSandbox(s.Sandboxed, &t.sandboxed, &t.open)
		switch s.Status {
		case suiteFailed:
			t.failed++
		case suiteTimedOut:
			t.timedOut++
		case suiteBefore:
			t.suitesBefore++
		case suiteNotRun:
			t.notRun++
			res.Notes = append(res.Notes, fmt.Sprintf("The pytest suite %s did not run: %s", s.Name, lowerFirst(s.Reason)))
		}
		t.lines = append(t.lines, suiteLine(s))
	}
	if t.before > 0 {
		t.lines = append(t.lines, fmt.Sprintf("%s also fail at the base. They are not regressions.", plural(t.before, "test", "tests")))
	}
	if t.flaky > 0 {
		t.lines = append(t.lines, fmt.Sprintf("%s failed once and passed on the second run.", plural(t.flaky, "test", "tests")))
	}
}

// addScenarios adds the runner scenarios: a finding for each that fails,
// their table and a summary sentence.
func (t *tally) addScenarios(res *checks.Result, scen *runnerOutcome) {
	if scen.Engine != nil {
		res.Notes = append(res.Notes, engineNote("the runner template "+scen.Template, *scen.Engine))
	}
	if scen.Err != nil {
		res.Findings = append(res.Findings, checks.Finding{
			Path: scen.ErrPath, Line: scen.ErrLine, Level: checks.LevelFailure,
			Title: "The runner scenarios did not run", Message: scen.Err.Error(),
		})
		t.lines = append(t.lines, "The runner scenarios did not run: "+scen.Err.Error()+".")
		return
	}
	tb := checks.Table{Title: ScenarioTable, Header: []string{"Scenario", "Verdict", "Regressions"}}
	if scen.Compared {
		tb.Header = []string{"Scenario", "Verdict", "At base", "Regressions"}
	}
	for _, r := range scen.Results {
		t.scenTotal++
		countSandbox(r.Sandboxed, &t.sandboxed, &t.open)
		verdict := "pass"
		switch {
		case r.Passed():
		case r.PreExisting:
			t.scenBefore++
			verdict = "fails before this change: " + strings.Join(r.Problems, "; ")
			res.Findings = append(res.Findings, preExistingFinding(scen, r))
		default:
			t.scenFailed++
			verdict = "fail: " + strings.Join(r.Problems, "; ")
			res.Findings = append(res.Findings, scenarioFinding(scen, r))
		}
		tb.Rows = append(tb.Rows, scenarioRow(scen, r, verdict))
	}
	res.Tables = append(res.Tables, tb)
	line := fmt.Sprintf("The runner passes %d of %d scenarios.", t.scenTotal-t.scenFailed-t.scenBefore, t.scenTotal)
	if t.scenBefore > 0 {
		line += fmt.Sprintf(" %s before this change.", plural(t.scenBefore, "scenario fails", "scenarios fail"))
	}
	t.lines = append(t.lines, line)
	if scen.BaseNote != "" {
		res.Notes = append(res.Notes, scen.BaseNote)
	}
	if scen.Strict && t.scenBefore > 0 {
		res.Notes = append(res.Notes, "The base config sets pre_existing: fail, so runner failures that happen before this change also fail the check.")
		t.scenFailed += t.scenBefore
		t.scenBefore = 0
	}
}

// preExistingFinding is the finding of a scenario that fails at base the
// same way: a warning, or a failure when the base config sets
// pre_existing: fail.
func preExistingFinding(scen *runnerOutcome, r scenarioResult) checks.Finding {
	level := checks.LevelWarning
	if scen.Strict {
		level = checks.LevelFailure
	}
	why := "The base's runner fails it the same way, so this change does not cause it."
	if scen.Same {
		why = "The runner and its settings are the same at base and head, so this change does not cause it."
	}
	return checks.Finding{
		Path: scen.Template, Level: level,
		Title:   cut("Runner scenario "+r.Name+" fails before this change", maxTitle),
		Message: fmt.Sprintf("In the scenario %s, %s. %s", r.Name, strings.Join(r.Problems, "; "), why),
		Details: r.Details,
	}
}

// scenarioFinding is the failure of a scenario this change breaks.
func scenarioFinding(scen *runnerOutcome, r scenarioResult) checks.Finding {
	msg := fmt.Sprintf("In the scenario %s, %s.", r.Name, strings.Join(r.Problems, "; "))
	switch r.Base {
	case "pass":
		msg += " The base's runner passes it: this change causes the failure."
	case "fail":
		msg += " The base's runner fails it too, but not with every problem above."
	}
	return checks.Finding{
		Path: scen.Template, Level: checks.LevelFailure,
		Title:   cut("Runner scenario "+r.Name+" fails", maxTitle),
		Message: msg,
		Details: r.Details,
	}
}

// scenarioRow is a scenario's row of the scenario table.
func scenarioRow(scen *runnerOutcome, r scenarioResult, verdict string) []string {
	regs := "none"
	if len(r.Reported) > 0 {
		regs = strings.Join(r.Reported, ", ")
	}
	if !scen.Compared {
		return []string{r.Name, verdict, regs}
	}
	base := r.Base
	if base == "" {
		base = "not run"
	}
	return []string{r.Name, verdict, base, regs}
}

// sandboxNote says which pytest runs used the sandbox, or "" when none ran.
func sandboxNote(ctx context.Context, sandboxed, open int) string {
	switch {
	case sandboxed > 0 && open == 0:
		return "Every pytest run used the " + sandbox.Label(ctx) + " sandbox: no network, and writes only to its own folders."
	case sandboxed > 0:
		return fmt.Sprintf("%d pytest runs used the "+sandbox.Label(ctx)+" sandbox and %d did not.", sandboxed, open)
	case open > 0:
		return "The pytest runs did not use a sandbox: bubblewrap does not work on this machine. They had a clean environment and a time limit."
	}
	return ""
}

// conclude sets the conclusion and title from the counts.
func (t *tally) conclude(res *checks.Result, suites int, scen *runnerOutcome) {
	scenBroken := scen != nil && (scen.Err != nil || t.scenFailed > 0)
	switch {
	case t.failed > 0 || scenBroken:
		res.Conclusion = checks.Failure
		var parts []string
		if t.regressions > 0 {
			parts = append(parts, plural(t.regressions, "test fails", "tests fail")+" at head")
		} else if t.failed > 0 {
			parts = append(parts, plural(t.failed, "pytest suite fails", "pytest suites fail"))
		}
		if t.scenFailed > 0 {
			parts = append(parts, fmt.Sprintf("the runner fails %d of %d scenarios", t.scenFailed, t.scenTotal))
		} else if scen != nil && scen.Err != nil {
			parts = append(parts, "the runner scenarios did not run")
		}
		res.Title = upperFirst(strings.Join(parts, "; "))
	case t.timedOut > 0:
		res.Conclusion = checks.TimedOut
		res.Title = fmt.Sprintf("%s ran past the time limit", plural(t.timedOut, "pytest suite", "pytest suites"))
	case t.notRun > 0:
		res.Conclusion = checks.NotRun
		res.Title = fmt.Sprintf("%s did not run", plural(t.notRun, "pytest suite", "pytest suites"))
	default:
		res.Conclusion = checks.Success
		var parts []string
		if n := suites - t.suitesBefore; n > 0 {
			parts = append(parts, plural(n, "pytest suite passes", "pytest suites pass"))
		}
		if t.suitesBefore > 0 {
			parts = append(parts, plural(t.suitesBefore, "pytest suite fails", "pytest suites fail")+" before this change")
		}
		if scen != nil && t.scenBefore > 0 {
			parts = append(parts, fmt.Sprintf("the runner passes %d of %d scenarios; %d fail before this change", t.scenTotal-t.scenBefore, t.scenTotal, t.scenBefore))
		} else if scen != nil {
			parts = append(parts, fmt.Sprintf("the runner passes %d of %d scenarios", t.scenTotal, t.scenTotal))
		}
		res.Title = upperFirst(strings.Join(parts, "; "))
	}
}

func countSandbox(used bool, sandboxed, open *int) {
	if used {
		*sandboxed++
	} else {
		*open++
	}
}

// suiteLine is one summary sentence for a suite.
func suiteLine(s suiteResult) string {
	var value string
	if len(s.Figures) > 0 {
		value = s.Figures[0].Value
	}
	switch s.Status {
	case suitePassed:
		if s.Before+s.Flaky > 0 {
			return fmt.Sprintf("The pytest suite %s has no regressions: %s.", s.Name, value)
		}
		return fmt.Sprintf("The pytest suite %s passes: %s.", s.Name, value)
	case suiteNotRun:
		return fmt.Sprintf("The pytest suite %s did not run: %s", s.Name, lowerFirst(s.Reason))
	case suiteBefore:
		return fmt.Sprintf("The pytest suite %s fails before this change: %s", s.Name, lowerFirst(s.Reason))
	default:
		if value != "" {
			return fmt.Sprintf("The pytest suite %s fails: %s. %s", s.Name, value, s.Reason)
		}
		return fmt.Sprintf("The pytest suite %s fails. %s", s.Name, s.Reason)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lowerFirst(s string) string {
	if s == "" || (len(s) > 1 && strings.ToUpper(s[1:2]) == s[1:2] && s[1] != ' ') {
		return s // an acronym or a name, such as "pytest" is already lower
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// engineNote says which engine rendered what, in the shared words of the
// render check's notes: Python Jinja2's bytes are production's.
func engineNote(what string, e jinja.Engine) string {
	return words.EngineNote(what, e.Jinja2, e.Version, e.Note)
}
