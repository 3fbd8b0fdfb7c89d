// The view's changes, checks and command sections, as the comment template reads them.

package report

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// changeViews lists the changes of every result, numbered in order.
func changeViews(r *Report) []*changeView {
	var out []*changeView
	for _, res := range r.Results {
		for _, c := range res.Changes {
			out = append(out, changeViewOf(len(out)+1, c))
		}
	}
	return out
}

// changeViewOf lays out change number n.
func changeViewOf(n int, c checks.Change) *changeView {
	w := wordChange(c)
	cv := &changeView{Num: n, Indent: len(itoa(n)) + 2, Title: markdown.Bold(prose(c.Path) + ": " + w.Headline), path: c.Path}
	cv.Effect = "Effect: " + w.Effect
	cv.Before = "Before: " + w.Before
	if strings.TrimSpace(c.Diff) != "" {
		cv.Diff = &details{Summary: diffSummary(c), Block: newBlock("diff", c.Diff)}
	}
	return cv
}

// foldSummary is the one line the changes of a passing run fold under:
// how many templates change their rendered output, how many keep it, and
// how many are new or deleted.
func foldSummary(r *Report) string {
	var total, changed, same, added, deleted, other int
	for _, res := range r.Results {
		for _, c := range res.Changes {
			total++
			switch {
			case c.Status == "added":
				added++
			case c.Status == "deleted":
				deleted++
			case len(c.AddedPerSet) > 0:
				changed++
			case c.SameSets == c.Sets:
				same++
			default:
				other++
			}
		}
	}
	var parts []string
	for _, p := range []struct {
		n      int
		format string
	}{{changed, "output changes in %d"}, {same, "same output in %d"}, {added, "%d new"}, {deleted, "%d deleted"}, {other, "not compared in %d"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf(p.format, p.n))
		}
	}
	return fmt.Sprintf("%s: %s. The effect and rendered diff of each", capital(plural(total, "changed template", "changed templates")), strings.Join(parts, ", "))
}

func diffSummary(c checks.Change) string {
	return fmt.Sprintf("Rendered diff: %s added, %s removed", plural(c.Added, "line", "lines"), plural(c.Removed, "line", "lines"))
}

// summaryText makes s safe inside a <summary> element.
func summaryText(s string) string {
	s = prose(s)
	return strings.ReplaceAll(s, ">", "&gt;")
}

// seconds writes a duration for people: "0.4 s", "12.5 s", "2m5s".
func seconds(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// capital makes the first letter of s a capital.
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// shownChanges is how many changes the comment shows before it folds the
// rest.
const shownChanges = 3

// ChangesHead are the changes shown in full.
func (v *view) ChangesHead() []*changeView { return v.Changes[:min(len(v.Changes), shownChanges)] }

// ChangesTail are the changes folded under one summary line.
func (v *view) ChangesTail() []*changeView { return v.Changes[min(len(v.Changes), shownChanges):] }

// ChangesTailSummary is the summary line of the folded changes.
func (v *view) ChangesTailSummary() string {
	return plural(len(v.ChangesTail()), "more change", "more changes")
}

// ChecksSummary counts the checks by result, with the marks of the table:
// "❌ 1 failed, ✅ 2 passed, ⚪ 1 skipped: each check's result, figures and
// findings".
func (v *view) ChecksSummary() string {
	c := v.report.counts()
	var parts []string
	for _, p := range []struct {
		n    int
		mark string
		word string
	}{
		{c.failed, markFail, "failed"},
		{c.passed, markPass, "passed"},
		{c.notRun + c.other, markNotRun, "not run"},
		{c.skipped, markSkipped, "skipped"},
	} {
		if p.n > 0 {
			parts = append(parts, p.mark+" "+itoa(p.n)+" "+p.word)
		}
	}
	return "Checks: " + strings.Join(parts, ", ") + ". Each check's result, figures and findings"
}

// maxCommandLine is the longest command the comment shows in a line of
// text; a longer one, or one with several lines, gets a code block.
const maxCommandLine = 160

// CommandLine is the sentence with the command that reproduces the run,
// when the command fits on one line; else "".
func (v *view) CommandLine() string {
	cmd := v.report.Command
	if cmd == "" || strings.ContainsAny(cmd, "\r\n") || len(cmd) > maxCommandLine || v.Command == nil {
		return ""
	}
	return "The command " + code(cmd) + " reproduces this run."
}
