package restore

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/words"
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
	probes     int        // probe runs of the head's and the base's step
	cmp        comparison // the base side of the scenarios that fail at head
}

// wallLabel is the label of the wall time figure.
const wallLabel = "Restore wall time"

// assemble fills the result from the outcomes.
func assemble(res *checks.Result, ri resultInput) {
	table := checks.Table{Title: "Restore scenarios", Header: []string{"Scenario", "Verdict", "Discarded"}}
	if ri.cmp.Ran {
		table.Header = []string{"Scenario", "Verdict", "At base", "Discarded"}
	}
	row := func(name, verdict, base, discarded string) []string {
		if ri.cmp.Ran {
			return []string{name, verdict, base, discarded}
		}
		return []string{name, verdict, discarded}
	}
	// counts: failures the PR causes, and failures that happen before it.
	var catPass, catBefore, randPass, randBefore, failures int
	for i, o := range ri.catalogue {
		b := cmpAt(ri.cmp.Catalogue, i)
		verdict := string(o.Verdict)
		switch {
		case o.Verdict == Pass:
			catPass++
		case b.PreExisting:
			catBefore++
			verdict = verdictBefore
			res.Findings = append(res.Findings, beforeFinding(ri.step, o, ri.cmp))
		default:
			failures++
			f := scenarioFinding(ri.step, o)
			addBaseText(&f, b)
			res.Findings = append(res.Findings, f)
		}
		if b.PreExisting && ri.cmp.Strict {
			failures++
		}
		table.Rows = append(table.Rows, row(o.Scenario.Name, verdict, baseCell(o, b, ri.cmp), discardedCell(o)))
	}
	randDiscarded := 0
	var failedRandom, beforeRandom []string
	for i, o := range ri.random {
		randDiscarded += len(o.Expect.Discarded)
		b := cmpAt(ri.cmp.Random, i)
		if o.Verdict == Pass {
			randPass++
			continue
		}
		if b.PreExisting {
			randBefore++
			beforeRandom = append(beforeRandom, o.Scenario.Name)
			if ri.cmp.Strict {
				failures++
			}
			continue
		}
		failures++
		if sh, ok := ri.shrunk[i]; ok {
			f := randomFinding(ri.step, ri.seed, i, len(ri.random), o, sh)
			addBaseText(&f, b)
			res.Findings = append(res.Findings, f)
		} else if o.Verdict == Broken {
			res.Findings = append(res.Findings, scenarioFinding(ri.step, o))
		} else {
			failedRandom = append(failedRandom, o.Scenario.Name)
		}
	}
	if len(beforeRandom) > 0 {
		res.Findings = append(res.Findings, checks.Finding{
			Path: ri.step.Template, Line: ri.step.Line, Level: beforeLevel(ri.cmp),
			Title:   "Random restore sets fail before this change",
			Message: fmt.Sprintf("%s: %s. %s", plural(len(beforeRandom), "random set fails the same way at the base", "random sets fail the same way at the base"), strings.Join(beforeRandom, ", "), beforeWhy(ri.cmp)),
		})
	}
	if len(failedRandom) > 0 {
		res.Findings = append(res.Findings, checks.Finding{
			Path: ri.step.Template, Line: ri.step.Line, Level: checks.LevelFailure,
			Title:   "More random restore sets fail",
			Message: fmt.Sprintf("%s: %s.", plural(len(failedRandom), "more random set fails and is not shrunk", "more random sets fail and are not shrunk"), strings.Join(failedRandom, ", ")),
		})
	}
	if ri.skipReason == "" && ri.count == 0 {
		table.Rows = append(table.Rows, row("random sets", "not run", "", "restore.random.count is 0"))
	}
	if ri.skipReason != "" {
		table.Rows = append(table.Rows, row(fmt.Sprintf("random sets (seed %d)", ri.seed), "not run", "", ri.skipReason))
		res.Notes = append(res.Notes, fmt.Sprintf("The %d random sets did not run, because %s.", ri.count, ri.skipReason))
	}
	if len(ri.random) > 0 {
		base := ""
		if randBefore > 0 {
			base = fmt.Sprintf("%d fail there too", randBefore)
		}
		table.Rows = append(table.Rows, row(
			fmt.Sprintf("random sets (seed %d)", ri.seed),
			fmt.Sprintf("%d of %d pass", randPass, len(ri.random)),
			base,
			fmt.Sprintf("%d paths over all sets", randDiscarded),
		))
	}
	res.Tables = append(res.Tables, table)
	res.Figures = append(res.Figures,
		checks.Figure{Label: "Restore scenarios", Value: fmt.Sprintf("%d of %d pass", catPass, len(ri.catalogue)) + beforeSuffix(catBefore), Command: ri.command},
		checks.Figure{Label: "Random restore sets", Value: fmt.Sprintf("%d of %d pass (seed %d)", randPass, len(ri.random), ri.seed) + beforeSuffix(randBefore)},
		checks.Figure{Label: wallLabel, Value: fmt.Sprintf("%s for %d scenario runs%s%s, %d at a time", elapsed(ri.wall), len(ri.catalogue)+len(ri.random), baseRunsText(ri.cmp.BaseRuns), probeRunsText(ri.probes), ri.parallel)},
	)
	res.Notes = append(res.Notes, sandboxNote(append(append([]Outcome{}, ri.catalogue...), ri.random...)))
	res.Notes = append(res.Notes, mappingNote(ri.step))
	res.Notes = append(res.Notes, engineNote("the restore step's template "+ri.step.Template, ri.step.Engine))

	if ri.cmp.Unchanged {
		res.Notes = append(res.Notes, fmt.Sprintf("The restore step and policy are the same bytes at base and head in %s. No restore result can fail this PR.", plural(ri.cmp.Sets, "variable set", "variable sets")))
	}
	if ri.cmp.Note != "" {
		res.Notes = append(res.Notes, ri.cmp.Note)
	}
	if ri.cmp.Strict && catBefore+randBefore > 0 {
		res.Notes = append(res.Notes, "The base config sets pre_existing: fail, so failures that happen before this change also fail the check.")
	}
	if ri.step.PreludeErr != "" {
		res.Notes = append(res.Notes, "The step runs without the script's shell options and variables: "+ri.step.PreludeErr+".")
	} else if n := preludeNote(ri.step); n != "" {
		res.Notes = append(res.Notes, n)
	}
	// A skipped random run counts only when a catalogue failure is the
	// PR's: a step that already hung at the base does not block it.
	if ri.skipReason != "" && catBefore < len(ri.catalogue)-catPass {
		failures++
	}
	if ri.cmp.Unchanged && !ri.cmp.Strict {
		failures = 0
	}
	catFail := len(ri.catalogue) - catPass
	randFail := len(ri.random) - randPass
	switch {
	case failures == 0 && catFail == 0 && randFail == 0 && ri.skipReason == "":
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%d of %d restore scenarios and %d of %d random sets match the model", catPass, len(ri.catalogue), randPass, len(ri.random))
	case failures == 0:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%d of %d restore scenarios and %d of %d random sets fail before this change; this PR adds no failure",
			catFail, len(ri.catalogue), randFail, len(ri.random))
	default:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%d of %d restore scenarios and %d of %d random sets do not match the model",
			catFail, len(ri.catalogue), randFail, len(ri.random))
		if before := catBefore + randBefore; before > 0 && !ri.cmp.Strict {
			res.Title += fmt.Sprintf(" (%d of them fail before this change)", before)
		}
	}
	res.Summary = fmt.Sprintf("The restore step of %s runs in a fixture git repository after each agent-like change. "+
		"A Go model of the restore policy gives the expected tree and report. %s.", ri.step.Template, res.Title)
}

func discardedCell(o Outcome) string {
	switch {
	case o.Verdict == Broken:
		return "unknown"
	case !o.Expect.Ran && o.Expect.Reason != "" && o.ExitCode > 0:
		return fmt.Sprintf("none: %s (exit code %d)", o.Expect.Reason, o.ExitCode)
	case !o.Expect.Ran && o.Expect.Reason != "":
		return "none: " + o.Expect.Reason
	case len(o.Expect.Discarded) == 0:
		return "none"
	case len(o.Expect.Discarded) > maxListed:
		// A consistency scenario puts back every protected path: the
		// cell names the first ones and counts the rest.
		return fmt.Sprintf("%s and %d more", strings.Join(o.Expect.Discarded[:maxListed], ", "), len(o.Expect.Discarded)-maxListed)
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
	ran, boxed, backend := 0, 0, ""
	for _, o := range outs {
		if o.Verdict == Broken {
			continue
		}
		ran++
		if o.Sandboxed {
			boxed, backend = boxed+1, o.Backend
		}
	}
	switch {
	case ran == 0:
		return "No scenario ran the restore step."
	case boxed == ran:
		return "The restore step runs in a " + sandbox.LabelOf(backend) + " sandbox without network. It can write only its scenario folder."
	case boxed == 0:
		return "The restore step runs without a sandbox, because bubblewrap is not usable here or is turned off."
	}
	return fmt.Sprintf("The restore step runs in a bubblewrap sandbox in %d of %d runs.", boxed, ran)
}

func mappingNote(s *Step) string {
	var parts []string
	for _, p := range []string{s.Paths.Repo, s.Paths.BaselineSHA, s.Paths.Logs} {
		if p != "" {
			parts = append(parts, words.Code(p))
		}
	}
	sort.Strings(parts)
	how := "The step is the section of the rendered script"
	if s.Command != "" {
		how = "The step is the configured command"
	}
	read := ""
	if len(s.PathsRead) > 0 {
		read = fmt.Sprintf(" These paths are read from the step itself: %s.", strings.Join(s.PathsRead, ", "))
	}
	if len(parts) == 0 {
		return how + ". It runs with bash in each fixture repository." + read
	}
	return fmt.Sprintf("%s. It runs with bash in each fixture repository, with %s mapped onto fixture folders.%s", how, strings.Join(parts, ", "), read)
}

// plural is the shared count with its noun ("1 test", "2 tests").
var plural = words.Plural

// verdictBefore is the verdict of a scenario that fails at base and head.
const verdictBefore = "fails before this change"

func cmpAt(list []baseCmp, i int) baseCmp {
	if i < len(list) {
		return list[i]
	}
	return baseCmp{}
}

// baseCell is the base column of one scenario.
func baseCell(o Outcome, b baseCmp, c comparison) string {
	switch {
	case o.Verdict == Pass || o.Verdict == Broken:
		return "not run"
	case c.Unchanged:
		return "same step"
	case b.Verdict == Broken && c.Note != "":
		return "no step"
	case b.Verdict == "":
		return "not run"
	}
	return string(b.Verdict)
}

func beforeLevel(c comparison) checks.Level {
	if c.Strict {
		return checks.LevelFailure
	}
	return checks.LevelWarning
}

func beforeWhy(c comparison) string {
	if c.Unchanged {
		return "The step and its policy are the same at base and head, so this PR does not cause it."
	}
	return "The base's step fails it with the same differences, so this PR does not cause it."
}

// beforeFinding is the finding of a scenario that fails before this change.
func beforeFinding(step *Step, o Outcome, c comparison) checks.Finding {
	f := scenarioFinding(step, o)
	f.Level = beforeLevel(c)
	f.Title = fmt.Sprintf("Restore scenario %s fails before this change", o.Scenario.Name)
	f.Message = fmt.Sprintf("Scenario %s: %s. %s", o.Scenario.Name, firstDiffs(o.Diffs), beforeWhy(c))
	return f
}

// addBaseText says how the base did on a scenario that fails at head.
func addBaseText(f *checks.Finding, b baseCmp) {
	switch {
	case b.Verdict == Pass:
		f.Message += " The base's step passes this scenario: this PR causes the failure."
	case len(b.OnlyAtHead) > 0:
		f.Message += fmt.Sprintf(" The base fails it too, but only the head has: %s.", firstDiffs(b.OnlyAtHead))
	}
}
