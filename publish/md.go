package publish

import (
	"strings"

	"github.com/formula-code/template-verify/internal/markdown"
)

// prose makes check text safe as one line of markdown, as the report does
// (markdown.Inline): no raw HTML, no reference, no ping, no control
// character, no temporary path.
func prose(s string) string {
	return markdown.Inline(s)
}

// fenced is a code block with a fence longer than any backtick run in body.
func fenced(lang, body string) string {
	body = strings.TrimRight(markdown.Block(body), "\n")
	fence := markdown.Fence(body)
	return fence + lang + "\n" + body + "\n" + fence
}

// collapsed is a code block inside <details>, with a one-line summary.
func collapsed(summary, lang, body string) string {
	return "<details><summary>" + prose(summary) + "</summary>\n\n" + fenced(lang, body) + "\n\n</details>"
}

// cell makes s safe as one table cell.
func cell(s string) string {
	return strings.ReplaceAll(prose(s), "|", `\|`)
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:") {
		return s
	}
	return s + "."
}

// Shared with the other output packages, so text is quoted the same way.
var (
	plain       = markdown.Plain
	code        = markdown.Code
	escapeStart = markdown.EscapeStart
)
