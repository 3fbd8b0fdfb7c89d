package jinja

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// compareContext is how many lines Compare shows before and after the line
// of the first difference.
const compareContext = 2

// maxShownLine is the most bytes of one line that Compare shows.
const maxShownLine = 160

// Compare compares gonja's output with Python Jinja2's byte for byte. When
// they differ, detail gives the offset, line and column of the first
// differing byte and both outputs around it, each line quoted so that
// spaces, tabs, carriage returns and a missing final newline are visible.
func Compare(gonjaOut, pyOut string) (same bool, detail string) {
	if gonjaOut == pyOut {
		return true, ""
	}
	off := 0
	for off < len(gonjaOut) && off < len(pyOut) && gonjaOut[off] == pyOut[off] {
		off++
	}
	prefix := gonjaOut[:off]
	line := strings.Count(prefix, "\n") + 1
	lineStart := strings.LastIndexByte(prefix, '\n') + 1
	col := off - lineStart + 1
	var b strings.Builder
	fmt.Fprintf(&b, "The outputs differ first at byte %d (line %d, column %d).\n", off, line, col)
	fmt.Fprintf(&b, "gonja: %d bytes, %d lines. Jinja2: %d bytes, %d lines.\n",
		len(gonjaOut), countLines(gonjaOut), len(pyOut), countLines(pyOut))
	writeExcerpt(&b, "gonja", gonjaOut, line, col)
	writeExcerpt(&b, "Jinja2", pyOut, line, col)
	return false, strings.TrimRight(b.String(), "\n")
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// writeExcerpt writes the lines of s around line (1-based); the line of
// the difference is marked with ">".
func writeExcerpt(b *strings.Builder, label, s string, line, col int) {
	lines := strings.SplitAfter(s, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	first := max(1, line-compareContext)
	last := min(len(lines), line+compareContext)
	fmt.Fprintf(b, "%s:\n", label)
	width := len(strconv.Itoa(max(last, line)))
	for i := first; i <= last; i++ {
		mark := " "
		if i == line {
			mark = ">"
		}
		text, c := lines[i-1], 0
		if i == line {
			c = col
		}
		fmt.Fprintf(b, "%s %*d | %s\n", mark, width, i, quoteWindow(text, c))
	}
	if line > len(lines) {
		fmt.Fprintf(b, "> %*d | (end of output)\n", width, line)
	}
}

// quoteWindow quotes a line; a long line is cut to a window around col
// (1-based; 0 means the start).
func quoteWindow(text string, col int) string {
	if len(text) <= maxShownLine {
		return strconv.Quote(text)
	}
	start := 0
	if col > maxShownLine/2 {
		start = col - 1 - maxShownLine/2
	}
	end := min(len(text), start+maxShownLine)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	out := strconv.Quote(text[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}
