package publish

import (
	"github.com/formula-code/template-verify/internal/markdown"
	"strings"
)

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// prose makes check text safe as one line of markdown: one line, no raw
// HTML.
func prose(s string) string {
	return htmlEscaper.Replace(oneLine(s))
}

// escapeStart keeps a line from starting a heading, list, quote, table or
// fence.
func escapeStart(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '>', '|', '-', '+', '*', '=', '`', '~':
		return `\` + s
	}
	if i := strings.IndexAny(s, ".)"); i > 0 && i < 10 && strings.Trim(s[:i], "0123456789") == "" {
		return s[:i] + `\` + s[i:]
	}
	return s
}

// fenced is a code block with a fence longer than any backtick run in body.
func fenced(lang, body string) string {
	body = strings.TrimRight(body, "\n")
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
	oneLine = markdown.OneLine
	code    = markdown.Code
)
