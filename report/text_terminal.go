package report

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// Text renders the report for a terminal: the same facts as the comment,
// with no markdown. One line per check gives its conclusion, duration and
// title; findings read "path:line: level: message".
func (r *Report) Text() string {
	r = r.quieted()
	var b strings.Builder
	r.textHead(&b)

	if len(r.Results) > 0 {
		b.WriteString("\nchecks:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, res := range r.Results {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", plain(res.Check), Word(res.Conclusion), textDuration(res.Duration), plain(res.Title))
		}
		tw.Flush()
	}

	findings := textFindings(r)
	if len(findings) > 0 {
		b.WriteString("\nfindings:\n")
		for _, f := range findings {
			b.WriteString(f + "\n")
		}
	}

	var figs []string
	for _, res := range r.Results {
		for _, f := range res.Figures {
			s := fmt.Sprintf("  %s: %s: %s", plain(res.Check), plain(f.Label), plain(f.Value))
			if f.Command != "" && plain(f.Command) != plain(f.Label) {
				s += "\n      $ " + plain(f.Command)
			}
			figs = append(figs, s)
		}
	}
	if len(figs) > 0 {
		b.WriteString("\nfigures:\n" + strings.Join(figs, "\n") + "\n")
	}

	for _, res := range r.Results {
		for _, t := range res.Tables {
			fmt.Fprintf(&b, "\n%s (%s):\n", plain(t.Title), plain(res.Check))
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "  %s\n", textCells(t.Header))
			for _, row := range t.Rows {
				fmt.Fprintf(tw, "  %s\n", textCells(row))
			}
			tw.Flush()
		}
	}

	if ns := textNotes(r); len(ns) > 0 {
		b.WriteString("\nnotes:\n")
		for _, n := range ns {
			b.WriteString("  - " + n + "\n")
		}
	}
	if r.Command != "" {
		b.WriteString("\nreproduce:\n  " + plain(r.Command) + "\n")
	}
	return inertCommands(b.String())
}

// textHead writes the lines before the checks: the repository, the
// revisions, the templates, the result and the duration.
func (r *Report) textHead(b *strings.Builder) {
	title := "template-verify"
	if r.Repo != "" {
		title += ": " + plain(r.Repo)
	}
	b.WriteString(title + "\n")
	if r.Base != "" || r.BaseRev != "" {
		fmt.Fprintf(b, "base:       %s\n", textRev(r.BaseRev, r.Base))
	}
	if r.Head != "" || r.HeadRev != "" {
		fmt.Fprintf(b, "head:       %s\n", textRev(r.HeadRev, r.Head))
	}
	if r.MergeBase != "" && r.MergeBase != r.Base {
		fmt.Fprintf(b, "merge base: %s\n", short(r.MergeBase))
	}
	switch {
	case len(r.Templates) == 0 && len(r.Results) == 0:
		b.WriteString("templates:  none changed, nothing to verify\n")
	case len(r.Templates) == 0:
		b.WriteString("templates:  none changed\n")
	default:
		fmt.Fprintf(b, "templates:  %d\n", len(r.Templates))
		for _, t := range r.Templates {
			fmt.Fprintf(b, "  %s %s\n", plain(t.Path), mark(t))
		}
	}
	fmt.Fprintf(b, "result:     %s\n", strings.ToUpper(Word(r.Overall)))
	if r.Duration > 0 {
		fmt.Fprintf(b, "duration:   %s\n", seconds(r.Duration))
	}
}

// inertCommands keeps PR text (file names, titles) from becoming a
// workflow command when the text report is printed in a workflow step:
// the runner reads a line that starts with "::" after white space as a
// command, and the old form "##[" anywhere in a line. Such a line gets a
// backslash first; "##[" gets a space.
func inertCommands(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
			l = `\` + l
		}
		lines[i] = strings.ReplaceAll(l, "##[", "## [")
	}
	return strings.Join(lines, "\n")
}

// textFindings lists the findings in check order, grouped by cause as
// the comment groups them: a failure that shares its root with an earlier
// one is listed under it, "same cause (check): …", and not again in its
// own place.
func textFindings(r *Report) []string {
	heads, folded := causeGroups(r)
	var out []string
	for ri, res := range r.Results {
		for fi, f := range res.Findings {
			at := findingAt{ri, fi}
			if folded[at] {
				continue
			}
			out = append(out, textFinding(res.Check, f))
			if c := heads[at]; c != nil {
				for _, s := range c.also {
					out = append(out, "    same cause ("+plain(s.check)+"): "+textFinding(s.check, s.finding))
				}
			}
		}
	}
	return out
}

// textFinding writes "path:line: level: title: message", with the check's
// name when the finding has no path: the location and level rules of the
// comment, without markdown.
func textFinding(check string, f checks.Finding) string {
	loc := plain(markdown.Location(f.Path, f.Line, f.EndLine))
	if loc == "" {
		loc = "(" + plain(check) + ")"
	}
	msg := plain(f.Message)
	if t := plain(f.Title); t != "" && t != msg {
		msg = t + ": " + msg
	}
	return fmt.Sprintf("%s: %s: %s", loc, levelOf(f.Level), msg)
}

// textNotes are the notes of the comment without markdown marks.
func textNotes(r *Report) []string {
	ns := notes(r)
	for i, n := range ns {
		ns[i] = strings.NewReplacer("\\`", "", "`", "").Replace(markdown.Unescape(n))
	}
	return ns
}

func textCells(cells []string) string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = plain(c)
	}
	return strings.Join(out, "\t")
}

// textRev writes "main (0123456789ab)".
func textRev(name, sha string) string {
	switch {
	case sha == "":
		return name
	case name == "" || name == sha:
		return short(sha)
	}
	return name + " (" + short(sha) + ")"
}

// textDuration writes "-" for a check that took no time, such as one that
// did not run.
func textDuration(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return seconds(d)
}
