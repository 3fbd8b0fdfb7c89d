// Package markdown holds the small escaping helpers that the report and
// the publisher share, so that a comment and a check-run output quote text
// the same way.
package markdown

import "strings"

// OneLine joins the lines of s with single spaces and trims it.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// Code puts s, on one line, in an inline code span whose backtick run is
// longer than any run inside s; empty text gives "".
func Code(s string) string {
	s = OneLine(s)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", LongestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// Fence returns a code fence of backticks longer than any backtick run in
// body, and at least three.
func Fence(body string) string {
	return strings.Repeat("`", max(3, LongestRun(body, '`')+1))
}

// LongestRun is the length of the longest run of c in s.
func LongestRun(s string, c byte) int {
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

// EscapeHTML writes "<" as "&lt;" outside inline code spans, so that text
// such as "<sha>" shows and "<details>" opens nothing. Inside a span the
// text shows as it is, so it stays.
func EscapeHTML(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			n := runLen(s, i)
			end := closingRun(s, i+n, n)
			if end < 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			b.WriteString(s[i : end+n])
			i = end + n
		case s[i] == '<':
			b.WriteString("&lt;")
			i++
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// runLen is the length of the backtick run at s[i].
func runLen(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun finds the next backtick run of exactly n from s[i], or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		if s[i] != '`' {
			i++
			continue
		}
		m := runLen(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// EscapeStart keeps a line of text from starting a heading, list, quote,
// table or fence.
func EscapeStart(s string) string {
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
