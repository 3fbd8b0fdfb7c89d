package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// StepAnnotation is one annotation of a workflow step (a workflow command
// such as ::error file=..::); every field is plain text.
type StepAnnotation struct {
	Level   string // error, warning or notice
	File    string // "" for none
	Line    int    // 0 for none
	EndLine int    // 0 for none
	Title   string
	Message string
	order   int // check order, then finding order
}

// LeftOut counts the step annotations that GitHub would not show.
type LeftOut struct{ Errors, Warnings, Notices int }

// Total is how many annotations are left out.
func (l LeftOut) Total() int { return l.Errors + l.Warnings + l.Notices }

// Note says how many annotations GitHub would not show, of perLevel of
// each level.
func (l LeftOut) Note(perLevel int) string {
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
	}{{l.Errors, "error", "errors"}, {l.Warnings, "warning", "warnings"}, {l.Notices, "notice", "notices"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.one, p.many))
		}
	}
	return fmt.Sprintf("GitHub shows at most %d annotations of each level for a step. Not shown here: %s. The job summary lists every finding.", perLevel, list(parts))
}

// StepAnnotations picks at most perLevel errors, warnings and notices
// (one notice less when a notice must say what was left out). Failures
// come first, then warnings; within a level, findings with a file come
// first, then check order. A check that failed or did not run with no
// failure finding gets one annotation of its own.
func StepAnnotations(rep *Report, perLevel int) ([]StepAnnotation, LeftOut) {
	rep = rep.quieted()
	var all []StepAnnotation
	for _, res := range rep.Results {
		if a, ok := checkStepAnnotation(res); ok {
			a.order = len(all)
			all = append(all, a)
		}
		for _, f := range res.Findings {
			a := findingStepAnnotation(res.Check, f)
			a.order = len(all)
			all = append(all, a)
		}
	}
	slices.SortStableFunc(all, func(a, b StepAnnotation) int {
		if d := stepRank(a.Level) - stepRank(b.Level); d != 0 {
			return d
		}
		if ha, hb := a.File != "", b.File != ""; ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})
	var out []StepAnnotation
	var left LeftOut
	count := map[string]int{}
	for _, a := range all {
		if count[a.Level] >= perLevel {
			switch a.Level {
			case "error":
				left.Errors++
			case "warning":
				left.Warnings++
			default:
				left.Notices++
			}
			continue
		}
		count[a.Level]++
		out = append(out, a)
	}
	// The note about what was left out is a notice too: make room for it.
	if left.Total() > 0 && count["notice"] == perLevel {
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].Level == "notice" {
				out = append(out[:i], out[i+1:]...)
				left.Notices++
				break
			}
		}
	}
	return out, left
}

func checkStepAnnotation(res checks.Result) (StepAnnotation, bool) {
	if res.Conclusion == checks.Success || res.Conclusion == checks.Skipped || res.Failures() > 0 {
		return StepAnnotation{}, false
	}
	level := "error"
	if res.Conclusion == checks.NotRun || res.Conclusion == checks.Cancelled {
		level = "warning"
	}
	msg := plain(res.Title)
	if s := plain(res.Summary); s != "" {
		msg = strings.TrimSpace(sentence(msg) + " " + s)
	}
	if msg == "" {
		msg = "The check " + Word(res.Conclusion) + "."
	}
	return StepAnnotation{Level: level, Title: fmt.Sprintf("template-verify / %s: %s", plain(res.Check), Word(res.Conclusion)), Message: msg}, true
}

func findingStepAnnotation(check string, f checks.Finding) StepAnnotation {
	a := StepAnnotation{Level: "notice", Title: "template-verify / " + plain(check)}
	switch f.Level {
	case checks.LevelFailure:
		a.Level = "error"
	case checks.LevelWarning:
		a.Level = "warning"
	}
	if t := plain(f.Title); t != "" {
		a.Title += ": " + t
	}
	a.Message = strings.TrimSpace(markdown.Clean(f.Message))
	if a.Message == "" {
		a.Message = plain(f.Title)
	}
	if p, ok := repoPath(f.Path); ok {
		a.File = p
		if f.Line > 0 {
			a.Line = f.Line
			if f.EndLine > f.Line {
				a.EndLine = f.EndLine
			}
		}
	}
	return a
}

func stepRank(level string) int {
	switch level {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}

// forkPublisherNote says how a repository publishes the reports of pull
// requests from forks.
const forkPublisherNote = "> **Pull requests from forks:** to publish their check runs, gate and comment, add the publisher workflow: copy " +
	"`examples/workflows/template-verify-publish.yml` from formula-code/template-verify to `.github/workflows/`, " +
	"and upload this step's `report-json` output as the artifact `template-verify-report` (as `examples/workflows/template-verify.yml` does). " +
	"It runs on `workflow_run` with a write token and reads only the report, never the pull request's code. " +
	"Without it, a required `template-verify / gate` never reports on a fork's pull request."

// JobSummary is the report for the job summary of a GitHub Actions step,
// within limit bytes. readOnly, when not "", says why the run could not
// write to GitHub: a note leads the summary (with how to publish the
// reports of forks when fork is set). When the comment does not render,
// the summary holds the terminal text.
func (r *Report) JobSummary(limit int, readOnly string, fork bool) string {
	note := ""
	if readOnly != "" {
		note = "> **Read-only run:** " + sentence(prose(readOnly)) + " The report is here, and the findings are annotations of this step.\n\n"
		if fork {
			note += forkPublisherNote + "\n\n"
		}
	}
	md, err := r.MarkdownLimit(limit - len(note))
	if err != nil {
		text := r.Text()
		fence := fenceFor(text)
		md = fmt.Sprintf("The report does not render as markdown: %s\n\n%stext\n%s\n%s\n", prose(err.Error()), fence, text, fence)
	}
	return note + md
}

// JobSummaryStopped is the job summary of a step that has no report: what
// happened (such as "The verification did not finish") and why.
func JobSummaryStopped(what string, err error) string {
	return "## template-verify\n\n" + what + ": " + sentence(prose(err.Error())) + "\n"
}
