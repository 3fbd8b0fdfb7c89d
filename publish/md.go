package publish

import (
	"strings"
)

// oneLine joins the lines of s with single spaces and trims it.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

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

// code puts s in an inline code span that no backtick in s can close.
func code(s string) string {
	s = oneLine(s)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// fenced is a code block with a fence longer than any backtick run in body.
func fenced(lang, body string) string {
	body = strings.TrimRight(body, "\n")
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + lang + "\n" + body + "\n" + fence
}

// collapsed is a code block inside <details>, with a one-line summary.
func collapsed(summary, lang, body string) string {
	return "<details><summary>" + prose(summary) + "</summary>\n\n" + fenced(lang, body) + "\n\n</details>"
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
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
