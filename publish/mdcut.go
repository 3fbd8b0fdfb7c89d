package publish

import (
	"fmt"
	"strconv"
	"strings"
)

// mdState is what a markdown cut must close: an open code fence, open
// <details> blocks, and how many lines of a table came so far.
type mdState struct {
	fenceChar  byte
	fenceLen   int
	details    int
	tableLines int
}

// line moves the state past one line (without its newline).
func (st *mdState) line(l string) {
	t := strings.TrimLeft(l, " \t")
	if st.fenceLen > 0 {
		if n := run(t, st.fenceChar); n >= st.fenceLen && strings.TrimSpace(t[n:]) == "" {
			st.fenceChar, st.fenceLen = 0, 0
		}
		return
	}
	for _, c := range []byte{'`', '~'} {
		if n := run(t, c); n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
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

// cutOK reports whether a cut after this line keeps every table whole: a
// table needs its header and its delimiter row.
func (st *mdState) cutOK() bool { return st.tableLines != 1 }

// closers is the text that closes what is open: the code fence, then each
// <details> block.
func (st *mdState) closers() string {
	var b strings.Builder
	if st.fenceLen > 0 {
		b.WriteString(strings.Repeat(string(st.fenceChar), st.fenceLen) + "\n")
	}
	for range st.details {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// run is the length of the run of c at the start of s.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// cutPrefix returns the longest start of md, plus the text that closes any
// open fence or <details>, that measures at most budget; pos is how much of
// md it keeps. It cuts at line ends, and inside a line only within a code
// block or when not even the first line fits. It never cuts inside a
// table's header.
func cutPrefix(md string, budget int, m measure) (kept string, pos int) {
	var st mdState
	size, closers := 0, ""
	for start := 0; start < len(md); {
		end := len(md)
		if i := strings.IndexByte(md[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		line := md[start:end]
		next := st
		next.line(strings.TrimRight(line, "\r\n"))
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

// cutMarkdown returns md within limit, measured by m, cut by cutPrefix
// with a note that says how much is not shown. It reports whether it cut.
func cutMarkdown(md string, limit int, m measure) (string, bool) {
	md = strings.ToValidUTF8(md, "\uFFFD")
	if m.size(md) <= limit {
		return md, false
	}
	widest := cutNote(limit, m, m.size(md), lineCount(md))
	kept, pos := cutPrefix(md, limit-m.size(widest), m)
	left := md[pos:]
	out := kept + cutNote(limit, m, m.size(left), lineCount(left))
	if m.size(out) > limit { // only when the limit is smaller than the note
		out = m.prefix(out, limit)
	}
	return out, true
}

// cutNote says what a cut left out.
func cutNote(limit int, m measure, size, lines int) string {
	return fmt.Sprintf("\n> **Cut:** This text is longer than GitHub's limit of %s %s. The cut leaves out the last %s (%s %s).\n",
		thousands(limit), m.unit, plural(lines, "line", "lines"), thousands(size), m.unit)
}

func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// thousands writes n with commas: 65,535.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural writes "1 line" or "3 lines", with commas in the number.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}
