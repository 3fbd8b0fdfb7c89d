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

// assemble folds the suite and scenario results into the check result.
func assemble(ctx context.Context, res checks.Result, suites []suiteResult, scen *runnerOutcome) checks.Result {
	var failed, timedOut, notRun, suitesBefore, regressions, before, flaky int
	var sandboxed, open int
	var lines []string
	for _, s := range suites {
		res.Figures = append(res.Figures, s.Figures...)
		res.Findings = append(res.Findings, s.Findings...)
		regressions += s.Regressions
		before += s.Before
		flaky += s.Flaky
		countSandbox(s.Sandboxed, &sandboxed, &open)
		switch s.Status {
		case suiteFailed:
			failed++
		case suiteTimedOut:
			timedOut++
		case suiteBefore:
			suitesBefore++
		case suiteNotRun:
			notRun++
			res.Notes = append(res.Notes, fmt.Sprintf("The pytest suite %s did not run: %s", s.Name, lowerFirst(s.Reason)))
		}
		lines = append(lines, suiteLine(s))
	}
	if before > 0 {
		lines = append(lines, fmt.Sprintf("%s also fail at the base. They are not regressions.", plural(before, "test", "tests")))
	}
	if flaky > 0 {
		lines = append(lines, fmt.Sprintf("%s failed once and passed on the second run.", plural(flaky, "test", "tests")))
	}
	scenFailed, scenTotal, scenBefore := 0, 0, 0
	if scen != nil {
		if scen.Engine != nil {
			res.Notes = append(res.Notes, engineNote("the runner template "+scen.Template, *scen.Engine))
		}
		if scen.Err != nil {
			res.Findings = append(res.Findings, checks.Finding{
				Path: scen.ErrPath, Line: scen.ErrLine, Level: checks.LevelFailure,
				Title: "The runner scenarios did not run", Message: scen.Err.Error(),
			})
			lines = append(lines, "The runner scenarios did not run: "+scen.Err.Error()+".")
		} else {
			t := checks.Table{Title: ScenarioTable, Header: []string{"Scenario", "Verdict", "Regressions"}}
			if scen.Compared {
				t.Header = []string{"Scenario", "Verdict", "At base", "Regressions"}
			}
			for _, r := range scen.Results {
				scenTotal++
				countSandbox(r.Sandboxed, &sandboxed, &open)
				verdict := "pass"
				switch {
				case r.Passed():
				case r.PreExisting:
					scenBefore++
					verdict = "fails before this change: " + strings.Join(r.Problems, "; ")
					level := checks.LevelWarning
					if scen.Strict {
						level = checks.LevelFailure
					}
					why := "The base's runner fails it the same way, so this change does not cause it."
					if scen.Same {
						why = "The runner and its settings are the same at base and head, so this change does not cause it."
					}
					res.Findings = append(res.Findings, checks.Finding{
						Path: scen.Template, Level: level,
						Title:   cut("Runner scenario "+r.Name+" fails before this change", maxTitle),
						Message: fmt.Sprintf("In the scenario %s, %s. %s", r.Name, strings.Join(r.Problems, "; "), why),
						Details: r.Details,
					})
				default:
					scenFailed++
					verdict = "fail: " + strings.Join(r.Problems, "; ")
					msg := fmt.Sprintf("In the scenario %s, %s.", r.Name, strings.Join(r.Problems, "; "))
					switch r.Base {
					case "pass":
						msg += " The base's runner passes it: this change causes the failure."
					case "fail":
						msg += " The base's runner fails it too, but not with every problem above."
					}
					res.Findings = append(res.Findings, checks.Finding{
						Path: scen.Template, Level: checks.LevelFailure,
						Title:   cut("Runner scenario "+r.Name+" fails", maxTitle),
						Message: msg,
						Details: r.Details,
					})
				}
				regs := "none"
				if len(r.Reported) > 0 {
					regs = strings.Join(r.Reported, ", ")
				}
				if scen.Compared {
					base := r.Base
					if base == "" {
						base = "not run"
					}
					t.Rows = append(t.Rows, []string{r.Name, verdict, base, regs})
				} else {
					t.Rows = append(t.Rows, []string{r.Name, verdict, regs})
				}
			}
			res.Tables = append(res.Tables, t)
			line := fmt.Sprintf("The runner passes %d of %d scenarios.", scenTotal-scenFailed-scenBefore, scenTotal)
			if scenBefore > 0 {
				line += fmt.Sprintf(" %s before this change.", plural(scenBefore, "scenario fails", "scenarios fail"))
			}
			lines = append(lines, line)
			if scen.BaseNote != "" {
				res.Notes = append(res.Notes, scen.BaseNote)
			}
			if scen.Strict && scenBefore > 0 {
				res.Notes = append(res.Notes, "The base config sets pre_existing: fail, so runner failures that happen before this change also fail the check.")
				scenFailed += scenBefore
				scenBefore = 0
			}
		}
	}
	switch {
	case sandboxed > 0 && open == 0:
		res.Notes = append(res.Notes, "Every pytest run used the "+sandbox.Label(ctx)+" sandbox: no network, and writes only to its own folders.")
	case sandboxed > 0:
		res.Notes = append(res.Notes, fmt.Sprintf("%d pytest runs used the "+sandbox.Label(ctx)+" sandbox and %d did not.", sandboxed, open))
	case open > 0:
		res.Notes = append(res.Notes, "The pytest runs did not use a sandbox: bubblewrap does not work on this machine. They had a clean environment and a time limit.")
	}
	res.Summary = strings.Join(lines, "\n")

	scenBroken := scen != nil && (scen.Err != nil || scenFailed > 0)
	switch {
	case failed > 0 || scenBroken:
		res.Conclusion = checks.Failure
		var parts []string
		if regressions > 0 {
			parts = append(parts, plural(regressions, "test fails", "tests fail")+" at head")
		} else if failed > 0 {
			parts = append(parts, plural(failed, "pytest suite fails", "pytest suites fail"))
		}
		if scenFailed > 0 {
			parts = append(parts, fmt.Sprintf("the runner fails %d of %d scenarios", scenFailed, scenTotal))
		} else if scen != nil && scen.Err != nil {
			parts = append(parts, "the runner scenarios did not run")
		}
		res.Title = upperFirst(strings.Join(parts, "; "))
	case timedOut > 0:
		res.Conclusion = checks.TimedOut
		res.Title = fmt.Sprintf("%s ran past the time limit", plural(timedOut, "pytest suite", "pytest suites"))
	case notRun > 0:
		res.Conclusion = checks.NotRun
		res.Title = fmt.Sprintf("%s did not run", plural(notRun, "pytest suite", "pytest suites"))
	default:
		res.Conclusion = checks.Success
		var parts []string
		if n := len(suites) - suitesBefore; n > 0 {
			parts = append(parts, plural(n, "pytest suite passes", "pytest suites pass"))
		}
		if suitesBefore > 0 {
			parts = append(parts, plural(suitesBefore, "pytest suite fails", "pytest suites fail")+" before this change")
		}
		if scen != nil && scenBefore > 0 {
			parts = append(parts, fmt.Sprintf("the runner passes %d of %d scenarios; %d fail before this change", scenTotal-scenBefore, scenTotal, scenBefore))
		} else if scen != nil {
			parts = append(parts, fmt.Sprintf("the runner passes %d of %d scenarios", scenTotal, scenTotal))
		}
		res.Title = upperFirst(strings.Join(parts, "; "))
	}
	return res
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
