package publish

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
)

// Kinds of text blocks, named in the cut note.
const (
	kindLead    = ""
	kindFinding = "finding"
	kindTable   = "table"
	kindChange  = "change"
	kindDetails = "details"
)

// The text shows at most this much of one finding's message and details,
// so that one long finding does not push out the others.
const (
	maxFindingBytes   = 2000
	maxFindingDetails = 16 << 10
)

// textBlock is one whole markdown block of a check run's text.
type textBlock struct {
	kind string
	text string
}

// textBlocks lays out the text of a check run: every finding (failures
// first), the tables, the changes with their rendered diffs, and the
// details.
func textBlocks(res checks.Result, unannotated, maxAnnotations int) []textBlock {
	var bs []textBlock
	if len(res.Findings) > 0 {
		bs = append(bs, textBlock{kindLead, fmt.Sprintf("### Findings (%d)", len(res.Findings))})
		if unannotated > 0 {
			bs = append(bs, textBlock{kindLead, fmt.Sprintf("A check run gets at most %s annotations, so %s with a file and line have no annotation. This list shows all findings.",
				thousands(maxAnnotations), plural(unannotated, "finding", "findings"))})
		}
		for _, rank := range []int{0, 1, 2} {
			for _, f := range res.Findings {
				if levelRank(levelOf(f.Level)) == rank {
					bs = append(bs, textBlock{kindFinding, findingText(f)})
				}
			}
		}
	}
	if len(res.Tables) > 0 {
		bs = append(bs, textBlock{kindLead, "### Tables"})
		for _, t := range res.Tables {
			bs = append(bs, textBlock{kindTable, tableText(t)})
		}
	}
	if len(res.Changes) > 0 {
		bs = append(bs, textBlock{kindLead, "### Changes"})
		for _, c := range res.Changes {
			bs = append(bs, textBlock{kindChange, changeText(c)})
		}
	}
	if strings.TrimSpace(res.Details) != "" {
		bs = append(bs, textBlock{kindDetails, "### Details\n\n" + fenced("text", res.Details)})
	}
	return bs
}

func findingText(f checks.Finding) string {
	s := "**" + levelOf(f.Level) + "**"
	if loc := location(f); loc != "" {
		s += " at " + code(loc)
	}
	s += ":"
	title, msg := prose(CutChars(f.Title, MaxTitleChars)), prose(CutBytes(f.Message, maxFindingBytes, ellipsis))
	if title != "" && title != msg {
		s += " **" + sentence(title) + "**"
	}
	if msg != "" {
		s += " " + sentence(msg)
	}
	if strings.TrimSpace(f.Details) != "" {
		s += "\n\n" + collapsed("Details", "text", CutBytes(f.Details, maxFindingDetails, "\n"+ellipsis+" (cut; the annotation has more)"))
	}
	return s
}

func location(f checks.Finding) string {
	loc := f.Path
	if loc != "" && f.Line > 0 {
		loc += fmt.Sprintf(":%d", f.Line)
		if f.EndLine > f.Line {
			loc += fmt.Sprintf("-%d", f.EndLine)
		}
	}
	return loc
}

func tableText(t checks.Table) string {
	cols := max(len(t.Header), 1)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	line := func(cells []string) string {
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
	title := strings.TrimRight(prose(t.Title), ".:")
	if title == "" {
		title = "Table"
	}
	lines := []string{"**" + escapeStart(title) + ":**", "", line(t.Header), "|" + strings.Repeat(" --- |", cols)}
	for _, r := range t.Rows {
		lines = append(lines, line(r))
	}
	return strings.Join(lines, "\n")
}

func changeText(c checks.Change) string {
	s := code(c.Path)
	if c.Status != "" {
		s += " (" + prose(c.Status) + ")"
	}
	if h := prose(c.Headline); h != "" {
		s += ": **" + sentence(h) + "**"
	}
	parts := []string{s}
	if e := prose(c.Effect); e != "" {
		parts = append(parts, "Effect: "+sentence(e))
	}
	if b := prose(c.Before); b != "" {
		parts = append(parts, "Before: "+sentence(b))
	}
	if c.Added > 0 || c.Removed > 0 {
		parts = append(parts, fmt.Sprintf("Rendered lines: %s added, %s removed.", thousands(c.Added), thousands(c.Removed)))
	}
	if strings.TrimSpace(c.Diff) != "" {
		parts = append(parts, collapsed("Rendered diff", "diff", c.Diff))
	}
	return strings.Join(parts, "\n\n")
}

// cutText joins the blocks within limit bytes. When they do not fit, it
// keeps whole blocks in order, then as much of the next block as fits
// without breaking it, and ends with a note that names what it left out.
func cutText(bs []textBlock, limit int, command string) string {
	texts := make([]string, len(bs))
	for i, b := range bs {
		texts[i] = strings.ToValidUTF8(b.text, "\uFFFD")
	}
	full := strings.Join(texts, "\n\n")
	if len(full) <= limit {
		return full
	}
	reserve := len(textNote(limit, bs, kindFinding, command)) + len("\n\n")
	var b strings.Builder
	for i, t := range texts {
		sep := ""
		if b.Len() > 0 {
			sep = "\n\n"
		}
		room := limit - reserve - b.Len() - len(sep)
		if len(t) <= room {
			b.WriteString(sep + t)
			continue
		}
		partial := ""
		if bs[i].kind != kindLead && room >= 256 {
			if kept, pos := cutPrefix(t, room, inBytes); pos > 0 {
				b.WriteString(sep + strings.TrimRight(kept, "\n"))
				partial = bs[i].kind
			}
		}
		left := bs[i:]
		if partial != "" {
			left = bs[i+1:]
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(textNote(limit, left, partial, command))
		break
	}
	return b.String()
}

// textNote names what a cut of the text left out.
func textNote(limit int, left []textBlock, partial, command string) string {
	count := map[string]int{}
	for _, b := range left {
		count[b.kind]++
	}
	var items []string
	switch partial {
	case "":
	case kindDetails:
		items = append(items, "the end of the details")
	default:
		items = append(items, "the end of one "+partial)
	}
	for _, k := range []string{kindFinding, kindTable, kindChange} {
		if n := count[k]; n > 0 {
			more := ""
			if k == partial {
				more = "more "
			}
			items = append(items, plural(n, more+k, more+k+"s"))
		}
	}
	if count[kindDetails] > 0 {
		items = append(items, "the details")
	}
	s := fmt.Sprintf("> **Cut:** This text is longer than GitHub's limit of %s bytes. The cut leaves out %s.", thousands(limit), list(items))
	if c := code(command); c != "" {
		s += " Run " + c + " to see all of it."
	}
	return s
}

// list joins words as "a", "a and b", "a, b and c".
func list(words []string) string {
	switch len(words) {
	case 0:
		return "the end of the text"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
