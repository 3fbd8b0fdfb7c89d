package report

import (
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/internal/words"
)

// maxProse is the longest one-line text (a title, message or note) in
// bytes. Longer text is cut at a rune boundary with an ellipsis; the JSON
// output keeps all of it.
const maxProse = 1000

// Shared with the publisher, so that a comment and a check-run output
// escape text the same way.
var escapeStart = markdown.EscapeStart

// fenceFor returns a code fence of backticks longer than any backtick run
// in body, and at least three.
func fenceFor(body string) string { return markdown.Fence(body) }

// prose makes check-provided text safe as one markdown line (see
// markdown.Inline), at most about maxProse bytes, with "1 templates"
// written "1 template". It cuts before it escapes, so that a cut never
// leaves a code span open around raw text.
func prose(s string) string {
	return markdown.Escape(singular(clip(markdown.Plain(s), maxProse)))
}

// clip cuts s to at most n bytes at a rune boundary, with an ellipsis.
func clip(s string, n int) string { return markdown.CutBytes(s, n, markdown.Ellipsis) }

// indent puts n spaces before every line of s that is not empty.
func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

// paras joins the parts that are not blank with blank lines.
func paras(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, strings.TrimRight(p, "\n"))
		}
	}
	return strings.Join(keep, "\n\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

// Shared with the other output packages, so text is quoted the same way.
var (
	oneLine   = markdown.OneLine
	plain     = markdown.Plain
	code      = markdown.Code
	sentence  = markdown.Sentence
	list      = markdown.List
	plural    = words.Plural
	short     = words.Short
	thousands = markdown.Thousands
)

// cell makes text safe in a table cell.
func cell(s string) string { return markdown.CellText(prose(s)) }
