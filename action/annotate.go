package action

import (
	"crypto/rand"
	"fmt"
	"strings"
	"unicode"

	"github.com/sethvargo/go-githubactions"

	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

// MaxStepAnnotations is how many annotations of each level GitHub shows
// for one step.
const MaxStepAnnotations = 10

// maxCommandMessage is the longest message of one workflow command.
const maxCommandMessage = 4000

// wfAnnotation is one workflow-command annotation (::error file=..::).
type wfAnnotation = report.StepAnnotation

// leftOut counts the annotations that GitHub would not show.
type leftOut = report.LeftOut

// chooseAnnotations picks at most MaxStepAnnotations of each level
// (report.StepAnnotations).
func chooseAnnotations(rep *report.Report) ([]wfAnnotation, leftOut) {
	return report.StepAnnotations(rep, MaxStepAnnotations)
}

// emit writes the annotations as workflow commands, and a notice that
// says how many were left out.
func emit(gha *githubactions.Action, as []wfAnnotation, left leftOut) {
	for _, a := range as {
		fields := map[string]string{"title": a.Title}
		if a.File != "" {
			fields["file"] = a.File
			if a.Line > 0 {
				fields["line"] = fmt.Sprint(a.Line)
			}
			if a.EndLine > 0 {
				fields["endLine"] = fmt.Sprint(a.EndLine)
			}
		}
		msg := markdown.CutBytes(a.Message, maxCommandMessage, markdown.Ellipsis)
		w := gha.WithFieldsMap(fields)
		switch a.Level {
		case "error":
			w.Errorf("%s", msg)
		case "warning":
			w.Warningf("%s", msg)
		default:
			w.Noticef("%s", msg)
		}
	}
	if left.Total() > 0 {
		gha.WithFieldsMap(map[string]string{"title": "template-verify"}).Noticef("%s", left.Note(MaxStepAnnotations))
	}
}

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
