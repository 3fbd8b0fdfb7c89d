// Package markdown holds the one set of rules by which package report
// writes every text a person reads (the comment, the check runs, the job
// summary, the terminal): escaping, a sentence (Sentence), bold text
// (Bold), a list (List), a number (Thousands), a location (Location), a
// table cell (Cell), and cuts within GitHub's limits that
// never break a fence, a table or a <details> block (Cut, CutChars,
// CutBytes).
//
// Text that a check returns is data: it can hold file names, template
// errors, test names and log lines that a pull request controls. Inline
// makes such text one safe markdown line: no raw HTML, no character
// reference, no @mention that pings, no control character, and no
// temporary path of the tool. Code and Block keep text as code. Plain is
// the same text for a terminal or a log.
package markdown

import (
	"regexp"
	"strings"
	"unicode"
)

// Inline makes text one line of markdown that shows as data: Clean, then
// OneLine, then Escape outside the code spans the text already has.
func Inline(s string) string {
	return Escape(OneLine(Clean(s)))
}

// Plain makes text one line for a terminal or a log: Clean, then OneLine.
func Plain(s string) string {
	return OneLine(Clean(s))
}

// Block makes text the body of a code block: Clean keeps its lines and
// tabs.
func Block(s string) string {
	return Clean(strings.ReplaceAll(s, "\r\n", "\n"))
}

// tempPath is an absolute path in a temporary folder of the tool, with the
// folders under it that os.MkdirTemp named (a word, a dash and random
// digits: "pytest-181715830/home-2623112461"), so that a masked message
// is the same in every run.
var tempPath = regexp.MustCompile(`(?:/[^\s/'"` + "`" + `]+)*/template-verify-[^\s/'"` + "`" + `]*(?:/[A-Za-z_.]+-[0-9]{3,}\b)*`)

// TempMask replaces the tool's temporary folders in text.
const TempMask = "…"

// Clean removes control characters except newline and tab, and the
// characters that reorder text (bidirectional controls), and replaces
// each temporary folder of the tool (/tmp/template-verify-…) with
// TempMask, so that a message names the file, not the run's folder.
func Clean(s string) string {
	if strings.IndexFunc(s, dropped) >= 0 {
		s = strings.Map(func(r rune) rune {
			if dropped(r) {
				return -1
			}
			return r
		}, s)
	}
	if strings.Contains(s, "/template-verify-") {
		s = tempPath.ReplaceAllString(s, TempMask)
	}
	return s
}

// dropped reports whether Clean removes r.
func dropped(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r), r == '\u061c', r == '\u200e', r == '\u200f',
		r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// OneLine joins the lines of s with single spaces and trims it.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// Code puts s, cleaned and on one line, in an inline code span whose
// backtick run is longer than any run inside s; empty text gives "".
func Code(s string) string {
	s = Plain(s)
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

// Escape makes text show as data where markdown reads markup, that is
// outside the inline code spans the text has: "<" becomes "&lt;", so that
// no HTML element or comment opens; "&" that starts a character reference
// becomes "&amp;", so that "&#64;" shows as it is; "@" before a name and
// "#" before a number get a zero-width space, so that no one is pinged and
// no issue gets a reference. Inside a code span the text
// shows as it is, so it stays. A backtick after a backslash opens no span,
// as in CommonMark. A backtick run that closes no span, and a backslash at
// the end, are escaped, so that s cannot change how the text after it
// reads. Escape is idempotent.
func Escape(s string) string {
	if !strings.ContainsAny(s, "<&@#[`\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\\':
			// A backslash escapes the next character: keep both. One at
			// the end is doubled, so that it cannot escape the text that
			// comes after s.
			switch {
			case i+1 == len(s):
				b.WriteString(`\\`)
				i++
			case s[i+1] == '<' || s[i+1] == '&' || s[i+1] == '@':
				b.WriteByte(c)
				i++
			default:
				b.WriteString(s[i : i+2])
				i += 2
			}
		case '`':
			n := runLen(s, i)
			end := closingRun(s, i+n, n)
			if end < 0 {
				// A run that closes no span is escaped, so that it
				// cannot pair with a backtick of the text after s.
				b.WriteString(strings.Repeat("\\`", n))
				i += n
				continue
			}
			b.WriteString(s[i : end+n])
			i = end + n
		case '<':
			b.WriteString("&lt;")
			i++
		case '[':
			// No link or image: text from a pull request cannot put a
			// link with text of its choice in the comment.
			b.WriteString(`\[`)
			i++
		case '&':
			// A reference shows as text: "&amp;", then its name or number
			// (a "#" before digits gets its space as any other).
			if ref := charRef.FindString(s[i:]); ref != "" && !ownEntity(ref) {
				b.WriteString("&amp;")
			} else {
				b.WriteByte(c)
			}
			i++
		case '@', '#':
			// "@name" pings; "#12" and "owner/repo#12" put a reference
			// in the timeline of that issue.
			b.WriteByte(c)
			if i+1 < len(s) && (c == '@' && nameByte(s[i+1]) || c == '#' && s[i+1] >= '0' && s[i+1] <= '9') {
				b.WriteString(zwsp)
			}
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// zwsp is the zero-width space that Escape puts after "@".
const zwsp = "\u200b"

// Unescape undoes Escape for a terminal: "&lt;", "&amp;" and the space after
// "@" and "#" go back to the text.
func Unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&amp;", "&", "@"+zwsp, "@", "#"+zwsp, "#").Replace(s)
}

// charRef is a character reference at the start of a text: "&name;",
// "&#digits;" or "&#xhex;".
var charRef = regexp.MustCompile(`^&(?:[A-Za-z][A-Za-z0-9]{0,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});`)

// ownEntity reports whether s starts with an entity that Escape writes or
// that decodes to harmless text.
func ownEntity(s string) bool {
	for _, e := range []string{"&amp;", "&lt;", "&gt;", "&quot;"} {
		if strings.HasPrefix(s, e) {
			return true
		}
	}
	return false
}

// nameByte reports whether c can start a GitHub user or team name.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
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
	case '`':
		// Only a run of three or more with no backtick after it opens a
		// fence. A backslash before any other run would break the code
		// span it opens, and leave the span's text live.
		if n := runLen(s, 0); n < 3 || strings.Contains(s[n:], "`") {
			return s
		}
		return `\` + s
	case '#', '>', '|', '-', '+', '*', '=', '~':
		return `\` + s
	}
	if i := strings.IndexAny(s, ".)"); i > 0 && i < 10 && strings.Trim(s[:i], "0123456789") == "" {
		return s[:i] + `\` + s[i:]
	}
	return s
}
