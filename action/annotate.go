package action

import (
	"crypto/rand"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/sethvargo/go-githubactions"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

// MaxStepAnnotations is how many annotations of each level GitHub shows
// for one step.
const MaxStepAnnotations = 10

// maxCommandMessage is the longest message of one workflow command.
const maxCommandMessage = 4000

// wfAnnotation is one workflow-command annotation (::error file=..::).
type wfAnnotation struct {
	level   string // error, warning or notice
	file    string
	line    int
	endLine int
	title   string
	message string
	order   int // check order, then finding order
}

// leftOut counts the annotations that GitHub would not show.
type leftOut struct{ errors, warnings, notices int }

func (l leftOut) total() int { return l.errors + l.warnings + l.notices }

// chooseAnnotations picks at most 10 errors, 10 warnings and 10 notices
// (9 when one more notice must say what was left out). Failures come
// first, then warnings; within a level, findings with a file come first,
// then check order. A check that failed or did not run with no failure
// finding gets one annotation of its own.
func chooseAnnotations(rep *report.Report) ([]wfAnnotation, leftOut) {
	var all []wfAnnotation
	n := 0
	for _, res := range rep.Results {
		if a, ok := checkAnnotation(res); ok {
			a.order = n
			n++
			all = append(all, a)
		}
		for _, f := range res.Findings {
			a := findingAnnotation(res.Check, f)
			a.order = n
			n++
			all = append(all, a)
		}
	}
	slices.SortStableFunc(all, func(a, b wfAnnotation) int {
		if d := levelRank(a.level) - levelRank(b.level); d != 0 {
			return d
		}
		if ha, hb := a.file != "", b.file != ""; ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})
	var out []wfAnnotation
	var left leftOut
	count := map[string]int{}
	for _, a := range all {
		if count[a.level] >= MaxStepAnnotations {
			switch a.level {
			case "error":
				left.errors++
			case "warning":
				left.warnings++
			default:
				left.notices++
			}
			continue
		}
		count[a.level]++
		out = append(out, a)
	}
	// The note about what was left out is a notice too: make room for it.
	if left.total() > 0 && count["notice"] == MaxStepAnnotations {
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].level == "notice" {
				out = append(out[:i], out[i+1:]...)
				left.notices++
				break
			}
		}
	}
	return out, left
}

func checkAnnotation(res checks.Result) (wfAnnotation, bool) {
	if res.Conclusion == checks.Success || res.Conclusion == checks.Skipped || res.Failures() > 0 {
		return wfAnnotation{}, false
	}
	level := "error"
	if res.Conclusion == checks.NotRun || res.Conclusion == checks.Cancelled {
		level = "warning"
	}
	msg := oneLine(res.Title)
	if s := oneLine(res.Summary); s != "" {
		msg = strings.TrimSpace(msg + ". " + s)
	}
	if msg == "" {
		msg = "The check " + report.Word(res.Conclusion) + "."
	}
	return wfAnnotation{level: level, title: fmt.Sprintf("template-verify / %s: %s", oneLine(res.Check), report.Word(res.Conclusion)), message: msg}, true
}

func findingAnnotation(check string, f checks.Finding) wfAnnotation {
	a := wfAnnotation{level: "notice", title: "template-verify / " + oneLine(check)}
	switch f.Level {
	case checks.LevelFailure:
		a.level = "error"
	case checks.LevelWarning:
		a.level = "warning"
	}
	if t := oneLine(f.Title); t != "" {
		a.title += ": " + t
	}
	a.message = strings.TrimSpace(markdown.Clean(f.Message))
	if a.message == "" {
		a.message = oneLine(f.Title)
	}
	if p := path.Clean(markdown.Clean(f.Path)); f.Path != "" && !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../") {
		a.file = p
		if f.Line > 0 {
			a.line = f.Line
			if f.EndLine > f.Line {
				a.endLine = f.EndLine
			}
		}
	}
	return a
}

func levelRank(level string) int {
	switch level {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}

// emit writes the annotations as workflow commands, and a notice that
// says how many were left out.
func emit(gha *githubactions.Action, as []wfAnnotation, left leftOut) {
	for _, a := range as {
		fields := map[string]string{"title": a.title}
		if a.file != "" {
			fields["file"] = a.file
			if a.line > 0 {
				fields["line"] = fmt.Sprint(a.line)
			}
			if a.endLine > 0 {
				fields["endLine"] = fmt.Sprint(a.endLine)
			}
		}
		msg := cut(a.message, maxCommandMessage)
		w := gha.WithFieldsMap(fields)
		switch a.level {
		case "error":
			w.Errorf("%s", msg)
		case "warning":
			w.Warningf("%s", msg)
		default:
			w.Noticef("%s", msg)
		}
	}
	if left.total() > 0 {
		gha.WithFieldsMap(map[string]string{"title": "template-verify"}).Noticef("%s", leftOutNote(left))
	}
}

// leftOutNote says how many annotations GitHub would not show.
func leftOutNote(left leftOut) string {
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
	}{{left.errors, "error", "errors"}, {left.warnings, "warning", "warnings"}, {left.notices, "notice", "notices"}} {
		if p.n == 1 {
			parts = append(parts, "1 "+p.one)
		} else if p.n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.many))
		}
	}
	s := strings.Join(parts, ", ")
	if i := strings.LastIndex(s, ", "); i >= 0 {
		s = s[:i] + " and " + s[i+2:]
	}
	return fmt.Sprintf("GitHub shows at most %d annotations of each level for a step. Not shown here: %s. The job summary lists every finding.", MaxStepAnnotations, s)
}

// oneLine is PR text on one line, without control characters or
// temporary paths.
func oneLine(s string) string { return markdown.Plain(s) }

// logSafe makes text that holds PR text safe to print to the job log, in
// addition to the stop-commands block that printReport puts around it: a
// line that would start a workflow command ("::" after white space) gets
// a backslash first, and the old form "##[" anywhere gets a space.
func logSafe(text string) string {
	lines := strings.Split(markdown.Clean(text), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
			l = `\` + l
		}
		lines[i] = strings.ReplaceAll(l, "##[", "## [")
	}
	return strings.Join(lines, "\n")
}

// stopToken is a random token for "::stop-commands::": PR text cannot
// guess it, so it cannot turn commands back on.
func stopToken() string {
	return "template-verify-" + rand.Text()
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
