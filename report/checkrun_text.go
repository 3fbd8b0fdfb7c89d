package report

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// Kinds of text blocks, named in the cut note.
const (
	kindLead    = ""
	kindFinding = "finding"
	kindTable   = "table"
	kindChange  = "change"
	kindDetails = "details"
)

// textBlock is one whole markdown block of a check run's text.
type textBlock struct {
	kind string
	text string
}

// textBlocks lays out the text of a check run with the comment's words:
// every finding (failures first), the tables, the changes with their
// rendered diffs, and the details.
func textBlocks(res checks.Result, unannotated, maxAnnotations int) []textBlock {
	var bs []textBlock
	if len(res.Findings) > 0 {
		bs = append(bs, textBlock{kindLead, fmt.Sprintf("### Findings (%s)", thousands(len(res.Findings)))})
		if unannotated > 0 {
			bs = append(bs, textBlock{kindLead, fmt.Sprintf("A check run gets at most %s annotations, so %s with a file and line have no annotation. This list shows all findings.",
				thousands(maxAnnotations), plural(unannotated, "finding", "findings"))})
		}
		for _, rank := range []int{0, 1, 2} {
			for _, f := range res.Findings {
				if levelRank(levelOf(f.Level)) == rank {
					bs = append(bs, textBlock{kindFinding, findingMarkdown(f)})
				}
			}
		}
	}
	if len(res.Tables) > 0 {
		bs = append(bs, textBlock{kindLead, "### Tables"})
		for _, t := range res.Tables {
			bs = append(bs, textBlock{kindTable, tableViewOf(t).markdown()})
		}
	}
	if len(res.Changes) > 0 {
		bs = append(bs, textBlock{kindLead, "### Changes"})
		for _, c := range res.Changes {
			bs = append(bs, textBlock{kindChange, changeViewOf(0, c).markdown()})
		}
	}
	if strings.TrimSpace(res.Details) != "" {
		bs = append(bs, textBlock{kindDetails, "### Details\n\n" + newBlock("text", res.Details).markdown()})
	}
	return bs
}

// findingMarkdown is a finding as the comment lists it, with its details
// (at most maxFindingDetails) folded under it.
func findingMarkdown(f checks.Finding) string {
	s := findingViewOf(f).Text
	if strings.TrimSpace(f.Details) != "" {
		d := &details{Summary: "Details", Block: newBlock("text", markdown.CutBytes(f.Details, maxFindingDetails, "\n"+markdown.Ellipsis+" (cut; the annotation has more)"))}
		s += "\n\n" + d.markdown()
	}
	return s
}

// markdown is the block as the template "block" writes it.
func (b *block) markdown() string {
	return b.Fence + b.Lang + "\n" + b.Body + "\n" + b.Fence
}

// markdown is the folded block as the template "details" writes it.
func (d *details) markdown() string {
	return "<details><summary>" + d.Summary + "</summary>\n\n" + d.Block.markdown() + "\n\n</details>"
}

// markdown is the table as the template "table" writes it.
func (t *tableView) markdown() string {
	return strings.Join(append([]string{t.Title, "", t.Header, t.Delim}, t.Rows...), "\n")
}

// markdown is the change as the template "change" writes it, without the
// item number.
func (c *changeView) markdown() string {
	var d string
	if c.Diff != nil {
		d = c.Diff.markdown()
	}
	return paras(c.Title, c.Effect, c.Before, d)
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
			if kept, pos := markdown.CutPrefix(t, room, markdown.Bytes); pos > 0 {
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
	if len(items) == 0 {
		items = append(items, "the end of the text")
	}
	s := fmt.Sprintf("> **Cut:** This text is longer than GitHub's limit of %s bytes. The cut leaves out %s.", thousands(limit), list(items))
	if c := code(command); c != "" {
		s += " Run " + c + " to see all of it."
	}
	return s
}
