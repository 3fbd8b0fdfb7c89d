package report

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// view is the comment as the templates see it: every sentence, escape and
// fence is ready, and the size limit cuts parts of it in place.
type view struct {
	Marker       string
	Verdict      string   // the first line: mark, verdict, why
	Failures     []string // each failure, linked to its line when known
	FailuresMore string
	Links        string // the check runs and the workflow run
	Purpose      string
	TreeIntro    string
	Tree         *block
	Changes      []*changeView
	ChangesFold  string // the summary line all changes fold under; "" shows them
	ChangesCut   string
	Compare      string
	Rows         []rowView
	Checks       []*checkView
	Command      *block
	Notes        []string

	// What the size limit cut, for the Notes section.
	cuts cutLog
	// The inputs of the parts that lists cut, to rebuild them.
	report *Report
	trees  int // templates shown in the tree; -1 for all
}

// block is a fenced code block.
type block struct {
	Fence, Lang, Body string
}

func newBlock(lang, body string) *block {
	body = strings.TrimRight(markdown.Block(body), "\n")
	return &block{Fence: fenceFor(body), Lang: lang, Body: body}
}

// details is a collapsed code block.
type details struct {
	Summary string
	Block   *block
	lines   int // lines of the body before any cut
}

type changeView struct {
	Num    int
	Indent int // width of the item marker, for the lines under it
	Title  string
	Effect string
	Before string
	Diff   *details
	Cut    string
	path   string
}

type rowView struct {
	Check, Result, Title string
}

type checkView struct {
	Heading     string // plain text for the <summary> line
	Summary     string
	Figures     []string
	Tables      []*tableView
	Findings    []*findingView
	Loose       bool // a blank line between findings, when any has details
	FindingsCut string
	Details     *details
	Cut         string
	name        string
	total       int // findings before any cut
}

type tableView struct {
	Title  string
	Header string
	Delim  string
	Rows   []string
	Cut    string
	total  int
}

type findingView struct {
	Text    string
	Details *details
	Cut     string
	loc     string
}

// buildView computes the comment of r, before any cut.
func buildView(r *Report) *view {
	v := &view{Marker: Marker, report: r, trees: -1}
	v.Verdict = headline(r)
	items, more := leadFailures(r)
	v.Failures = items
	if more > 0 {
		v.FailuresMore = fmt.Sprintf("%s below, in the details of the checks.", capital(plural(more, "more cause", "more causes")))
	}
	v.Links = linksLine(r)
	v.Purpose = purpose(r)
	v.setTree()
	v.Changes = changeViews(r)
	if r.Overall == checks.Success {
		v.ChangesFold = foldSummary(r)
	}
	v.Compare = compare(r)
	for _, res := range r.Results {
		v.Rows = append(v.Rows, row(res))
		v.Checks = append(v.Checks, checkViewOf(res))
	}
	if r.Command != "" {
		v.Command = newBlock("sh", r.Command)
	}
	return v
}

// setTree builds the file tree of the first v.trees templates (all for -1).
func (v *view) setTree() {
	ts := v.report.Templates
	v.Tree = nil
	if len(ts) == 0 {
		return
	}
	more := 0
	if v.trees >= 0 && v.trees < len(ts) {
		ts, more = ts[:v.trees], len(ts)-v.trees
	}
	tree := fileTree(ts)
	if more > 0 {
		tree = strings.TrimRight(tree, "\n") + fmt.Sprintf("\n… and %s more (cut to fit the size limit)", plural(more, "template", "templates"))
	}
	v.TreeIntro = "File tree of the " + plural(len(v.report.Templates), "template", "templates") + " the run covers"
	v.Tree = newBlock("text", tree)
}

// purpose writes 2 to 4 sentences: what the PR changes, what the run
// checks, and the verdict.
func purpose(r *Report) string {
	var s []string
	n := len(r.Templates)
	switch {
	case n == 0 && len(r.Results) == 0:
		s = append(s, "This PR changes no template, so there is nothing to verify.")
	case n == 0:
		s = append(s, "This PR changes no template, but it changes files that other checks verify.")
	case n <= 3:
		names := make([]string, n)
		for i, t := range r.Templates {
			names[i] = code(t.Path)
		}
		s = append(s, fmt.Sprintf("This PR changes %s: %s.", plural(n, "template", "templates"), list(names)))
	default:
		s = append(s, fmt.Sprintf("This PR changes %d templates. The file tree below lists them.", n))
	}
	var ran []string
	for _, res := range r.Results {
		if res.Conclusion != checks.NotRun && res.Conclusion != checks.Skipped {
			ran = append(ran, prose(res.Check))
		}
	}
	switch {
	case len(r.Results) == 0 && n == 0:
	case len(ran) == 0:
		s = append(s, "No check ran.")
	case n == 0:
		s = append(s, fmt.Sprintf("The run checks the repository with %s.", list(ran)))
	case n == 1:
		s = append(s, fmt.Sprintf("The run checks it with %s.", list(ran)))
	default:
		s = append(s, fmt.Sprintf("The run checks them with %s.", list(ran)))
	}
	if len(s) < 2 {
		s = append(s, verdict(r))
	}
	return strings.Join(s, " ")
}

// verdict is the sentence that gives the overall result.
func verdict(r *Report) string {
	c := r.counts()
	switch r.Overall {
	case checks.Success:
		switch {
		case c.total == 0:
			return "The result is a pass."
		case c.passed == c.total:
			if c.total == 1 {
				return "The check passed."
			}
			return fmt.Sprintf("All %d checks passed.", c.total)
		case c.passed+c.skipped == c.total:
			return fmt.Sprintf("The result is a pass: %d of %d checks passed, and %d had nothing to verify.", c.passed, c.total, c.skipped)
		}
		return "The result is a pass."
	case checks.Failure:
		if c.failed > 0 && c.total == 1 {
			return "The result is a failure: the check failed."
		}
		if c.failed > 0 {
			return fmt.Sprintf("The result is a failure: %d of %d checks failed.", c.failed, c.total)
		}
		return "The result is a failure."
	case checks.NotRun:
		if c.total == 0 {
			return "The result is not a pass, because no check ran."
		}
		if c.notRun+c.other == 0 {
			return "The result is not a pass, because no check passed: they had nothing to verify."
		}
		what := "did not run"
		if c.other > 0 {
			what = "did not finish"
		}
		if c.total == 1 {
			return "The result is not a pass, because the check " + what + "."
		}
		return fmt.Sprintf("The result is not a pass, because %d of %d checks %s.", c.notRun+c.other, c.total, what)
	case checks.TimedOut:
		return "The result is a failure, because the run timed out."
	case checks.Cancelled:
		return "The result is not a pass, because the run stopped before the checks finished."
	}
	return "The result is unknown, so it is not a pass."
}

// compare names the repository and the revisions.
func compare(r *Report) string {
	if r.Head == "" && r.Base == "" {
		return ""
	}
	var s []string
	what := "The run"
	if r.Repo != "" {
		what = "The run on " + code(r.Repo)
	}
	s = append(s, fmt.Sprintf("%s compares head %s with base %s.", what, rev(r.HeadRev, r.Head), rev(r.BaseRev, r.Base)))
	if r.MergeBase != "" && r.MergeBase != r.Base {
		s = append(s, fmt.Sprintf("It renders the base side at the merge base %s.", short(prose(r.MergeBase))))
	}
	if r.Duration > 0 {
		s = append(s, fmt.Sprintf("The run takes %s.", seconds(r.Duration)))
	}
	return strings.Join(s, " ")
}

// rev shows a revision as the user gave it, with its sha.
func rev(name, sha string) string {
	sha = prose(sha)
	switch {
	case sha == "":
		return code(name)
	case name == "" || name == sha:
		return short(sha)
	}
	return code(name) + " (" + short(sha) + ")"
}

// row is the line of one check in the Verification table: its mark and
// conclusion, and its title. The figures are in the check's details.
func row(res checks.Result) rowView {
	return rowView{Check: cell(res.Check), Result: conclusionMark(res.Conclusion) + " " + Word(res.Conclusion), Title: singular(cell(res.Title))}
}

// checkViewOf lays out one check under the table.
func checkViewOf(res checks.Result) *checkView {
	cv := &checkView{name: res.Check, total: len(res.Findings)}
	head := fmt.Sprintf("%s %s: %s", conclusionMark(res.Conclusion), prose(res.Check), Word(res.Conclusion))
	if res.Duration > 0 {
		head += " in " + seconds(res.Duration)
	}
	head += "."
	if t := prose(res.Title); t != "" {
		head += " " + sentence(capital(t))
	}
	cv.Heading = summaryText(singular(head))
	cv.Summary = summary(res.Summary)
	for _, f := range res.Figures {
		cv.Figures = append(cv.Figures, figure(f))
	}
	for _, t := range res.Tables {
		cv.Tables = append(cv.Tables, tableViewOf(t))
	}
	for _, f := range res.Findings {
		fv := findingViewOf(f)
		cv.Loose = cv.Loose || fv.Details != nil
		cv.Findings = append(cv.Findings, fv)
	}
	if strings.TrimSpace(res.Details) != "" {
		cv.Details = &details{Summary: "Details of the " + summaryText(res.Check) + " check", Block: newBlock("text", res.Details)}
	}
	return cv
}

// summary keeps the paragraphs of a check's summary, each on one line.
func summary(s string) string {
	var ps []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = prose(p); p != "" {
			ps = append(ps, escapeStart(p))
		}
	}
	return strings.Join(ps, "\n\n")
}

func figure(f checks.Figure) string {
	s := escapeStart(prose(f.Label)) + ": " + singular(prose(f.Value))
	if f.Label == "" {
		s = escapeStart(singular(prose(f.Value)))
	}
	if f.Command != "" && oneLine(f.Command) != oneLine(f.Label) {
		s += " (" + code(clip(oneLine(f.Command), maxProse)) + ")"
	}
	return s
}

func tableViewOf(t checks.Table) *tableView {
	cols := len(t.Header)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	cols = max(cols, 1)
	tv := &tableView{Title: sentenceColon(prose(t.Title)), total: len(t.Rows)}
	tv.Header = tableLine(t.Header, cols)
	tv.Delim = "|" + strings.Repeat(" --- |", cols)
	for _, r := range t.Rows {
		tv.Rows = append(tv.Rows, tableLine(r, cols))
	}
	return tv
}

// sentenceColon turns a table title into a lead-in line: "Restore
// scenarios:".
func sentenceColon(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ".:")
	if s == "" {
		return "Table:"
	}
	return escapeStart(s) + ":"
}

// tableLine writes one row with exactly cols cells.
func tableLine(cells []string, cols int) string {
	var b strings.Builder
	b.WriteString("|")
	for i := range cols {
		c := ""
		if i < len(cells) {
			c = cell(cells[i])
		}
		b.WriteString(" " + c + " |")
	}
	return b.String()
}

func findingViewOf(f checks.Finding) *findingView {
	loc := markdown.Location(f.Path, f.Line, f.EndLine)
	fv := &findingView{Text: findingText(f), loc: loc}
	if fv.loc == "" {
		fv.loc = f.Path
	}
	if strings.TrimSpace(f.Details) != "" {
		fv.Details = &details{Summary: "Details", Block: newBlock("text", f.Details)}
	}
	return fv
}

// findingText is one finding in one line, the same in the comment and the
// check run: "`path:line` level: **Title.** Message."
func findingText(f checks.Finding) string {
	text := levelOf(f.Level) + ":"
	if loc := markdown.Location(f.Path, f.Line, f.EndLine); loc != "" {
		text = code(loc) + " " + text
	}
	title, msg := prose(f.Title), prose(f.Message)
	if title != "" && title != msg {
		text += " " + markdown.Bold(sentence(title))
	}
	if msg != "" {
		text += " " + sentence(msg)
	}
	return text
}
