package synccheck

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PythonList returns the strings of the module-level list, tuple or set
// assigned to name in a Python source: "NAME = [...]", "NAME: T = (...)",
// "NAME = frozenset({...})". The last assignment wins, as in Python. An
// element that is a call, such as re.compile(r"..."), counts as its first
// string argument; any other element is an error. Nothing is run.
func PythonList(src, name string) ([]Item, error) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `[ \t]*(?::[^=\n]*)?=[ \t]*`)
	var items []Item
	var lastErr error
	found := false
	depth, lineStart := 0, true
	nl := newlines(src)
	for i := 0; i < len(src); {
		if lineStart && depth == 0 {
			if m := re.FindStringIndex(src[i:]); m != nil && !strings.HasPrefix(src[i+m[1]:], "=") {
				p := &pyReader{src: src, pos: i + m[1], nl: nl}
				items, lastErr = p.collection()
				found = true
			}
		}
		lineStart = false
		if next, ok, err := skipCommentOrString(src, i, nl); err != nil {
			return nil, err
		} else if ok {
			i = next
			continue
		}
		switch c := src[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case '\\':
			if i+1 < len(src) && src[i+1] == '\n' {
				i += 2
				continue
			}
		case '\n':
			lineStart = true
		}
		i++
	}
	if !found {
		return nil, fmt.Errorf("no module-level assignment to %s: %w", name, errNotFound)
	}
	if lastErr != nil {
		return nil, fmt.Errorf("%s: %w", name, lastErr)
	}
	return items, nil
}

// skipCommentOrString returns the offset just after the comment or the
// string literal that starts at i, and true; or false when none starts
// there. An unterminated string is an error.
func skipCommentOrString(src string, i int, nl []int) (int, bool, error) {
	switch src[i] {
	case '#':
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i, true, nil
	case '\'', '"':
		p := &pyReader{src: src, pos: i, nl: nl}
		if _, err := p.oneString(false); err != nil {
			return i, false, err
		}
		return p.pos, true, nil
	}
	return i, false, nil
}

// pyReader reads Python literals (also Jinja's, which are the same for
// strings, lists and tuples).
type pyReader struct {
	src string
	pos int
	// nl holds the offsets of the newlines of src, made at the first call
	// of line: counting from the start each time is quadratic.
	nl []int
}

// newlines returns the offsets of the newlines of src.
func newlines(src string) []int {
	nl := []int{}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			nl = append(nl, i)
		}
	}
	return nl
}

func (p *pyReader) line(at int) int {
	if p.nl == nil {
		p.nl = newlines(p.src)
	}
	n, _ := slices.BinarySearch(p.nl, at)
	return n + 1
}

func (p *pyReader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{p.line(min(p.pos, len(p.src)))}, args...)...)
}

// skipSpace skips blanks, newlines, comments and line continuations.
func (p *pyReader) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r', '\f':
			p.pos++
		case '\\':
			if p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n' {
				p.pos += 2
				continue
			}
			return
		case '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// atString reports whether a string literal (with its prefix) starts here.
func (p *pyReader) atString() bool {
	i := p.pos
	for j := 0; j < 2 && i < len(p.src) && strings.IndexByte("rRbBuUfF", p.src[i]) >= 0; j++ {
		i++
	}
	return i < len(p.src) && (p.src[i] == '\'' || p.src[i] == '"')
}

// strings reads one string or several adjacent ones (implicit
// concatenation); ok is false when no string starts here.
func (p *pyReader) strings() (Item, bool, error) {
	if !p.atString() {
		return Item{}, false, nil
	}
	it := Item{Line: p.line(p.pos)}
	var b strings.Builder
	for p.atString() {
		s, err := p.oneString(true)
		if err != nil {
			return Item{}, false, err
		}
		b.WriteString(s)
		save := p.pos
		p.skipSpace()
		if !p.atString() {
			p.pos = save
			break
		}
	}
	it.Value = b.String()
	return it, true, nil
}

// oneString reads one string literal; with decode it returns its value.
func (p *pyReader) oneString(decode bool) (string, error) {
	raw := false
	for p.pos < len(p.src) && strings.IndexByte("rRbBuUfF", p.src[p.pos]) >= 0 {
		switch p.src[p.pos] {
		case 'r', 'R':
			raw = true
		case 'f', 'F':
			if decode {
				return "", p.errorf("an f-string is not a literal")
			}
		}
		p.pos++
	}
	q := p.src[p.pos]
	triple := strings.HasPrefix(p.src[p.pos:], strings.Repeat(string(q), 3))
	start := p.pos // its line is counted only for an error
	if triple {
		p.pos += 3
	} else {
		p.pos++
	}
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == q && (!triple || strings.HasPrefix(p.src[p.pos:], strings.Repeat(string(q), 3))):
			if triple {
				p.pos += 3
			} else {
				p.pos++
			}
			return b.String(), nil
		case c == '\n' && !triple:
			return "", fmt.Errorf("line %d: the string does not end on its line", p.line(start))
		case c == '\\' && p.pos+1 < len(p.src):
			if raw {
				b.WriteString(p.src[p.pos : p.pos+2])
				p.pos += 2
				continue
			}
			n, s := unescapePy(p.src[p.pos:])
			b.WriteString(s)
			p.pos += n
			continue
		}
		b.WriteByte(c)
		p.pos++
	}
	return "", fmt.Errorf("line %d: the string does not end", p.line(start))
}

// unescapePy decodes the escape at the start of s (which starts with a
// backslash) as Python does; it returns the bytes consumed and the value.
// An unknown escape keeps its backslash.
func unescapePy(s string) (int, string) {
	simple := map[byte]string{'\n': "", '\\': `\`, '\'': "'", '"': `"`, 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}
	if v, ok := simple[s[1]]; ok {
		return 2, v
	}
	hex := func(n int) (int, string) {
		if len(s) < 2+n {
			return 2, s[:2]
		}
		v, err := strconv.ParseUint(s[2:2+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return 2, s[:2]
		}
		return 2 + n, string(rune(v))
	}
	switch s[1] {
	case 'x':
		return hex(2)
	case 'u':
		return hex(4)
	case 'U':
		return hex(8)
	}
	if s[1] >= '0' && s[1] <= '7' {
		n := 1
		for n < 3 && 1+n < len(s) && s[1+n] >= '0' && s[1+n] <= '7' {
			n++
		}
		v, _ := strconv.ParseUint(s[1:1+n], 8, 32)
		return 1 + n, string(rune(v))
	}
	return 2, s[:2]
}

var identChain = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*\s*\(`)

// collection reads a list, tuple or set of strings, optionally wrapped in
// a call such as frozenset(...) or tuple(...).
func (p *pyReader) collection() ([]Item, error) {
	p.skipSpace()
	if m := identChain.FindStringIndex(p.src[p.pos:]); m != nil {
		p.pos += m[1]
		items, err := p.collection()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, p.errorf("the call around the collection has more than one argument")
		}
		p.pos++
		return items, nil
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("no value")
	}
	closer, ok := map[byte]byte{'[': ']', '(': ')', '{': '}'}[p.src[p.pos]]
	if !ok {
		return nil, p.errorf("the value is not a list, tuple or set of strings")
	}
	p.pos++
	items := []Item{}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("the collection does not end")
		}
		if p.src[p.pos] == closer {
			p.pos++
			return items, nil
		}
		it, err := p.element()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ':' {
			return nil, p.errorf("the value is a dict")
		}
		if p.pos >= len(p.src) || p.src[p.pos] != closer {
			return nil, p.errorf("an element is not a string")
		}
	}
}

// element reads a string, or a call whose first argument is a string.
func (p *pyReader) element() (Item, error) {
	if it, ok, err := p.strings(); err != nil || ok {
		return it, err
	}
	m := identChain.FindStringIndex(p.src[p.pos:])
	if m == nil {
		return Item{}, p.errorf("an element is not a string")
	}
	p.pos += m[1]
	p.skipSpace()
	it, ok, err := p.strings()
	if err != nil {
		return Item{}, err
	}
	if !ok {
		return Item{}, p.errorf("the call's first argument is not a string")
	}
	// Skip the other arguments up to the closing parenthesis.
	depth := 1
	for depth > 0 {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return Item{}, p.errorf("the call does not end")
		}
		switch c := p.src[p.pos]; {
		case p.atString():
			if _, err := p.oneString(false); err != nil {
				return Item{}, err
			}
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
		p.pos++
	}
	return it, nil
}
