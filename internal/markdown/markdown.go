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
