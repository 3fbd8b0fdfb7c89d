package restore

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// maxDiffsInMessage is the number of differences a finding's message
// names; the details hold more.
const (
	maxDiffsInMessage = 3
	maxDiffsInDetails = 30
)

type resultInput struct {
	step       *Step
	seed       int64
	count      int    // random sets asked for
	skipReason string // why the random sets did not run
	catalogue  []Outcome
	random     []Outcome
	shrunk     map[int]shrunkSet
	wall       time.Duration
	parallel   int
	command    string
}

// assemble fills the result from the outcomes.
func assemble(res *checks.Result, ri resultInput) {
	table := checks.Table{Title: "Restore scenarios", Header: []string{"Scenario", "Verdict", "Discarded"}}
	catPass := 0
	for _, o := range ri.catalogue {
		if o.Verdict == Pass {
			catPass++
		}
		table.Rows = append(table.Rows, []string{o.Scenario.Name, string(o.Verdict), discardedCell(o)})
		if o.Verdict != Pass {
			res.Findings = append(res.Findings, scenarioFinding(ri.step, o))
		}
	}
	randPass, randDiscarded := 0, 0
	var failedRandom []string
	for i, o := range ri.random {
		randDiscarded += len(o.Expect.Discarded)
		if o.Verdict == Pass {
			randPass++
			continue
		}
		if sh, ok := ri.shrunk[i]; ok {
			res.Findings = append(res.Findings, randomFinding(ri.step, ri.seed, i, len(ri.random), o, sh))
		} else if o.Verdict == Broken {
			res.Findings = append(res.Findings, scenarioFinding(ri.step, o))
		} else {
			failedRandom = append(failedRandom, o.Scenario.Name)
		}
	}
	if len(failedRandom) > 0 {
		res.Findings = append(res.Findings, checks.Finding{
			Path: ri.step.Template, Line: ri.step.Line, Level: checks.LevelFailure,
			Title:   "More random restore sets fail",
			Message: fmt.Sprintf("%s: %s.", plural(len(failedRandom), "more random set fails and is not shrunk", "more random sets fail and are not shrunk"), strings.Join(failedRandom, ", ")),
		})
	}
	if ri.skipReason == "" && ri.count == 0 {
		table.Rows = append(table.Rows, []string{"random sets", "not run", "restore.random.count is 0"})
	}
	if ri.skipReason != "" {
		table.Rows = append(table.Rows, []string{fmt.Sprintf("random sets (seed %d)", ri.seed), "not run", ri.skipReason})
		res.Notes = append(res.Notes, fmt.Sprintf("The %d random sets did not run, because %s.", ri.count, ri.skipReason))
	}
	if len(ri.random) > 0 {
		table.Rows = append(table.Rows, []string{
			fmt.Sprintf("random sets (seed %d)", ri.seed),
			fmt.Sprintf("%d of %d pass", randPass, len(ri.random)),
			fmt.Sprintf("%d paths over all sets", randDiscarded),
		})
	}
	res.Tables = append(res.Tables, table)
	res.Figures = append(res.Figures,
		checks.Figure{Label: "Restore scenarios", Value: fmt.Sprintf("%d of %d pass", catPass, len(ri.catalogue)), Command: ri.command},
		checks.Figure{Label: "Random restore sets", Value: fmt.Sprintf("%d of %d pass (seed %d)", randPass, len(ri.random), ri.seed)},
		checks.Figure{Label: "Restore wall time", Value: fmt.Sprintf("%s for %d scenario runs, %d at a time", elapsed(ri.wall), len(ri.catalogue)+len(ri.random), ri.parallel)},
	)
	res.Notes = append(res.Notes, sandboxNote(append(append([]Outcome{}, ri.catalogue...), ri.random...)))
	res.Notes = append(res.Notes, mappingNote(ri.step))

	allPass := catPass == len(ri.catalogue) && randPass == len(ri.random) && ri.skipReason == ""
	if allPass {
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%d of %d restore scenarios and %d of %d random sets match the model", catPass, len(ri.catalogue), randPass, len(ri.random))
	} else {
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%d of %d restore scenarios and %d of %d random sets do not match the model",
			len(ri.catalogue)-catPass, len(ri.catalogue), len(ri.random)-randPass, len(ri.random))
	}
	res.Summary = fmt.Sprintf("The restore step of %s runs in a fixture git repository after each agent-like change. "+
		"A Go model of the restore policy gives the expected tree and report. %s.", ri.step.Template, res.Title)
}

func discardedCell(o Outcome) string {
	switch {
	case o.Verdict == Broken:
		return "unknown"
	case !o.Expect.Ran && o.Expect.Reason != "":
		return "none: " + o.Expect.Reason
	case len(o.Expect.Discarded) == 0:
		return "none"
	}
	return strings.Join(o.Expect.Discarded, ", ")
}

func scenarioFinding(step *Step, o Outcome) checks.Finding {
	f := checks.Finding{Path: step.Template, Line: step.Line, Level: checks.LevelFailure}
	switch o.Verdict {
	case Broken:
		f.Title = fmt.Sprintf("Restore scenario %s cannot be set up", o.Scenario.Name)
		f.Message = fmt.Sprintf("Scenario %s cannot be set up: %v", o.Scenario.Name, o.Err)
		return f
	case TimedOut:
		f.Title = fmt.Sprintf("Restore scenario %s timed out", o.Scenario.Name)
	default:
		f.Title = fmt.Sprintf("Restore scenario %s fails", o.Scenario.Name)
	}
	f.Message = fmt.Sprintf("Scenario %s: %s.", o.Scenario.Name, firstDiffs(o.Diffs))
	f.Details = details(o, o.Scenario.Edits)
	return f
}

func randomFinding(step *Step, seed int64, i, n int, full Outcome, sh shrunkSet) checks.Finding {
	return checks.Finding{
		Path: step.Template, Line: step.Line, Level: checks.LevelFailure,
		Title: fmt.Sprintf("Random restore set %d fails", i+1),
		Message: fmt.Sprintf("Random set %d of %d (seed %d) fails with %s. The shortest failing list has %s: %s.",
			i+1, n, seed, plural(len(full.Scenario.Edits), "edit", "edits"), plural(len(sh.Edits), "edit", "edits"), firstDiffs(sh.Outcome.Diffs)),
		Details: details(sh.Outcome, sh.Edits),
	}
}

func firstDiffs(diffs []string) string {
	if len(diffs) == 0 {
		return "no difference is recorded"
	}
	s := strings.Join(diffs[:min(len(diffs), maxDiffsInMessage)], "; ")
	if len(diffs) > maxDiffsInMessage {
		s += fmt.Sprintf("; and %d more", len(diffs)-maxDiffsInMessage)
	}
	return s
}

// details is the replayable edit list and the differences of one outcome.
func details(o Outcome, edits []Edit) string {
	var b strings.Builder
	b.WriteString("Edits on the base fixture, one a line (restore.ParseEdits reads them):\n")
	if o.Scenario.NoBaseline {
		b.WriteString("# no baseline sha file\n")
	}
	if len(edits) == 0 {
		b.WriteString("# no edits\n")
	}
	b.WriteString(FormatEdits(edits))
	b.WriteString("\nDifferences:\n")
	for i, d := range o.Diffs {
		if i == maxDiffsInDetails {
			fmt.Fprintf(&b, "... and %d more\n", len(o.Diffs)-i)
			break
		}
		b.WriteString(d + "\n")
	}
	if o.ExitCode != 0 || o.Stderr != "" {
		fmt.Fprintf(&b, "\nExit code: %d\n", o.ExitCode)
	}
	if o.Stderr != "" {
		b.WriteString("Stderr (end):\n" + o.Stderr + "\n")
	}
	return b.String()
}

func sandboxNote(outs []Outcome) string {
	ran, boxed := 0, 0
	for _, o := range outs {
		if o.Verdict == Broken {
			continue
		}
		ran++
		if o.Sandboxed {
			boxed++
		}
	}
	switch {
	case ran == 0:
		return "No scenario ran the restore step."
	case boxed == ran:
		return "The restore step runs in a bubblewrap sandbox without network. It can write only its scenario folder."
	case boxed == 0:
		return "The restore step runs without a sandbox, because bubblewrap is not usable here or is turned off."
	}
	return fmt.Sprintf("The restore step runs in a bubblewrap sandbox in %d of %d runs.", boxed, ran)
}

func mappingNote(s *Step) string {
	var parts []string
	for _, p := range []string{s.Paths.Repo, s.Paths.BaselineSHA, s.Paths.Logs} {
		if p != "" {
			parts = append(parts, "`"+p+"`")
		}
	}
	sort.Strings(parts)
	how := "The step is the section of the rendered script"
	if s.Command != "" {
		how = "The step is the configured command"
	}
	if len(parts) == 0 {
		return how + ". It runs with bash in each fixture repository."
	}
	return fmt.Sprintf("%s. It runs with bash in each fixture repository, with %s mapped onto fixture folders.", how, strings.Join(parts, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
