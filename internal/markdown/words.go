package markdown

import (
	"strconv"
	"strings"
)

// Sentence ends s with a full stop. Text that ends with ".", "!", "?" or
// an ellipsis keeps its end; a trailing ":", ";" or "," (a clause that
// leads to nothing) becomes the full stop, so that no sentence ends ":.".
// Empty text stays empty.
func Sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if strings.HasSuffix(s, Ellipsis) {
		return s
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return s
	case ':', ';', ',':
		if !strings.HasSuffix(s, `\`+s[len(s)-1:]) {
			return strings.TrimRight(s[:len(s)-1], " ") + "."
		}
	}
	return s + "."
}

// List joins words as "a", "a and b" or "a, b and c"; no words give "".
func List(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Thousands writes n with commas: 65536 gives "65,536".
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Bold puts markdown text (already escaped, such as Inline's) in bold: a
// "*" outside its code spans gets a backslash, so that it cannot end the
// bold early; inside a code span it shows as typed. Empty text gives "".
func Bold(md string) string {
	md = strings.TrimSpace(md)
	if md == "" {
		return ""
	}
	return "**" + escapeOutsideCode(md, '*') + "**"
}

// Cell makes text one safe table cell: Inline, and "|" escaped, which a
// table needs inside code spans too.
func Cell(s string) string {
	return CellText(Inline(s))
}

// CellText makes escaped markdown text one table cell: "|" gets a
// backslash.
func CellText(md string) string {
	return strings.ReplaceAll(md, "|", `\|`)
}

// Location is where a finding points: "path", "path:line" or
// "path:line-end"; "" without a path.
func Location(path string, line, end int) string {
	if path == "" || line <= 0 {
		return path
	}
	loc := path + ":" + strconv.Itoa(line)
	if end > line {
		loc += "-" + strconv.Itoa(end)
	}
	return loc
}

// escapeOutsideCode puts a backslash before each c that is not inside an
// inline code span of md (an escaped backtick opens no span).
func escapeOutsideCode(md string, c byte) string {
	if strings.IndexByte(md, c) < 0 {
		return md
	}
	var b strings.Builder
	for i := 0; i < len(md); {
		switch md[i] {
		case '\\':
			end := min(i+2, len(md))
			b.WriteString(md[i:end])
			i = end
		case '`':
			n := runLen(md, i)
			if end := closingRun(md, i+n, n); end >= 0 {
				b.WriteString(md[i : end+n])
				i = end + n
				continue
			}
			b.WriteString(md[i : i+n])
			i += n
		case c:
			b.WriteByte('\\')
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(md[i])
			i++
		}
	}
	return b.String()
}
