package markdown

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Ellipsis ends a cut title, message or line.
const Ellipsis = "…"

// CutChars returns s with at most n characters (runes). A cut string ends
// with Ellipsis, within the n characters. Invalid UTF-8 becomes U+FFFD
// first, as JSON encoding would make it.
func CutChars(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return prefixRunes(s, n-1) + Ellipsis
}

// CutBytes returns s within n UTF-8 bytes, cut on a rune boundary. A cut
// string ends with suffix, within the n bytes; when the suffix does not
// fit, the cut has none.
func CutBytes(s string, n int, suffix string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	if len(suffix) > n {
		suffix = ""
	}
	return prefixBytes(s, n-len(suffix)) + suffix
}

// prefixBytes is the longest prefix of valid UTF-8 s within n bytes that
// ends on a rune boundary.
func prefixBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// prefixRunes is the longest prefix of s with at most n runes.
func prefixRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// A Measure is how a limit counts: UTF-8 bytes (check-run outputs) or
// characters (comments).
type Measure struct {
	size   func(string) int
	prefix func(string, int) string
	unit   string // "bytes" or "characters"
}

// Size is the size of s in the measure's unit.
func (m Measure) Size(s string) int { return m.size(s) }

// The two measures of GitHub's limits.
var (
	Bytes = Measure{size: func(s string) int { return len(s) }, prefix: prefixBytes, unit: "bytes"}
	Chars = Measure{size: utf8.RuneCountInString, prefix: prefixRunes, unit: "characters"}
)

// State is what a cut of markdown must close: an open code fence, open
// <details> blocks, and how many lines of a table came so far. Feed it
// each line with Line.
type State struct {
	fenceChar  byte
	fenceLen   int
	details    int
	tableLines int
}

// InFence reports whether a code fence is open.
func (st *State) InFence() bool { return st.fenceLen > 0 }

// OpenDetails is how many <details> blocks are open.
func (st *State) OpenDetails() int { return st.details }

// TableLines is how many lines of a table came so far: 1 after a header
// line alone.
func (st *State) TableLines() int { return st.tableLines }

// Line moves the state past one line (without its newline).
func (st *State) Line(l string) {
	t := strings.TrimLeft(l, " \t")
	if st.fenceLen > 0 {
		if n := charRun(t, st.fenceChar); n >= st.fenceLen && strings.TrimSpace(t[n:]) == "" {
			st.fenceChar, st.fenceLen = 0, 0
		}
		return
	}
	for _, c := range []byte{'`', '~'} {
		if n := charRun(t, c); n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
			st.fenceChar, st.fenceLen, st.tableLines = c, n, 0
			return
		}
	}
	if strings.HasPrefix(t, "|") {
		st.tableLines++
	} else {
		st.tableLines = 0
	}
	st.details += strings.Count(t, "<details") - strings.Count(t, "</details>")
	st.details = max(st.details, 0)
}

// charRun is the length of the run of c at the start of s.
func charRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// cutOK reports whether a cut after this line keeps every table whole: a
// table needs its header and its delimiter row.
func (st *State) cutOK() bool { return st.tableLines != 1 }

// closers is the text that closes what is open: the code fence, then each
// <details> block.
func (st *State) closers() string {
	var b strings.Builder
	if st.fenceLen > 0 {
		b.WriteString(strings.Repeat(string(st.fenceChar), st.fenceLen) + "\n")
	}
	for range st.details {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// CutPrefix returns the longest start of md, plus the text that closes any
// open fence or <details>, that measures at most budget; pos is how much of
// md it keeps. It cuts at line ends, and inside a line only within a code
// block or when not even the first line fits. It never cuts inside a
// table's header.
func CutPrefix(md string, budget int, m Measure) (kept string, pos int) {
	var st State
	size, closers := 0, ""
	for start := 0; start < len(md); {
		end := len(md)
		if i := strings.IndexByte(md[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		line := md[start:end]
		next := st
		next.Line(strings.TrimRight(line, "\r\n"))
		lineSize := m.size(line)
		if end < len(md) && size+lineSize <= budget {
			if c := next.closers(); next.cutOK() && size+lineSize+m.size(c) <= budget {
				pos, closers = end, c
			}
			size += lineSize
			st = next
			start = end
			continue
		}
		// The line does not fit: cut inside it when that is safe.
		inFence := st.fenceLen > 0 && next.fenceLen > 0
		plain := pos == 0 && st.fenceLen == 0 && next.fenceLen == 0 && next.tableLines == 0
		if inFence || plain {
			c := "\n" + st.closers()
			if part := m.prefix(line, budget-size-m.size(c)); strings.TrimSpace(part) != "" {
				pos, closers = start+len(part), c
			}
		}
		break
	}
	return md[:pos] + closers, pos
}

// Cut returns md within limit, measured by m, cut by CutPrefix with a note
// that says how much is not shown. It reports whether it cut.
func Cut(md string, limit int, m Measure) (string, bool) {
	md = strings.ToValidUTF8(md, "\uFFFD")
	if m.size(md) <= limit {
		return md, false
	}
	widest := cutNote(limit, m, m.size(md), lineCount(md))
	kept, pos := CutPrefix(md, limit-m.size(widest), m)
	left := md[pos:]
	out := kept + cutNote(limit, m, m.size(left), lineCount(left))
	if m.size(out) > limit { // only when the limit is smaller than the note
		out = m.prefix(out, limit)
	}
	return out, true
}

// cutNote says what a cut left out.
func cutNote(limit int, m Measure, size, lines int) string {
	noun := "lines"
	if lines == 1 {
		noun = "line"
	}
	return fmt.Sprintf("\n> **Cut:** This text is longer than GitHub's limit of %s %s. The cut leaves out the last %s %s (%s %s).\n",
		Thousands(limit), m.unit, Thousands(lines), noun, Thousands(size), m.unit)
}

func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// Broken says what in md is left open: a code fence, a <details> block, or
// a table header without its delimiter row; "" when nothing is.
func Broken(md string) string {
	var st State
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		st.Line(l)
		if st.fenceLen == 0 && st.tableLines == 1 {
			if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "| ---") {
				return fmt.Sprintf("line %d: a table header without its delimiter row", i+1)
			}
		}
	}
	switch {
	case st.fenceLen > 0:
		return "a code fence is left open"
	case st.details > 0:
		return fmt.Sprintf("%d <details> left open", st.details)
	}
	return ""
}
