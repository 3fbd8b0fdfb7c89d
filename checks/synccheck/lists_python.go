package synccheck

import (
	"regexp"
	"strings"
)

// pythonLists returns the list, tuple and set displays of a Python source
// whose elements are all string literals, such as PATTERNS = [r"a", "b"]
// or frozenset({"a", "b"}). A subscript x[...] and a call's parentheses
// f(...) are not displays. The name is the target of the assignment, the
// keyword argument or the dict key the display is the value of. The Go
// reader of pyliteral.go reads it; nothing runs.
func pythonLists(src string) []List {
	nl := newlines(src)
	var lists []List
	for i := 0; i < len(src); {
		if next, ok, err := skipCommentOrString(src, i, nl); err != nil {
			return lists // an unterminated string ends the file's lists
		} else if ok {
			i = next
			continue
		}
		switch c := src[i]; c {
		case '[', '(', '{':
			if !displayStart(src, i) {
				break
			}
			p := &pyReader{src: src, pos: i, nl: nl}
			items, ok := p.stringDisplay()
			if !ok {
				break
			}
			lists = append(lists, List{Kind: pythonKind[c], Name: pythonName(src[:i]), Line: p.line(i), Items: items})
			i = p.pos
			continue
		case 'r', 'R', 'b', 'B', 'u', 'U', 'f', 'F':
			// A string prefix: skip the identifier, so that its quote
			// starts a string above.
			if i > 0 && isIdent(src[i-1]) {
				break
			}
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			if j-i <= 2 && j < len(src) && (src[j] == '\'' || src[j] == '"') {
				p := &pyReader{src: src, pos: i, nl: nl}
				if _, err := p.oneString(false); err != nil {
					return lists
				}
				i = p.pos
				continue
			}
			i = j
			continue
		}
		i++
	}
	return lists
}

var pythonKind = map[byte]string{'[': "Python list", '(': "Python tuple", '{': "Python set"}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// displayStart reports whether the bracket at i opens a display: not a
// subscript or a call (an identifier, a closing bracket or a string
// before it on the same line).
func displayStart(src string, i int) bool {
	j := i - 1
	for j >= 0 && (src[j] == ' ' || src[j] == '\t') {
		j--
	}
	if j < 0 {
		return true
	}
	c := src[j]
	if c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' {
		return false
	}
	if !isIdent(c) {
		return true
	}
	// A keyword before a bracket starts a display: "in (...)", "return [...]".
	k := j
	for k >= 0 && isIdent(src[k]) {
		k--
	}
	return pyKeywords[src[k+1:j+1]]
}

var pyKeywords = map[string]bool{"in": true, "return": true, "yield": true, "and": true, "or": true, "not": true, "is": true, "else": true, "if": true, "for": true, "lambda": true, "assert": true, "await": true, "from": true}

// stringDisplay reads the display at the reader's position when every
// element is a string literal (implicit concatenation allowed, a
// trailing comma allowed); ok is false otherwise.
func (p *pyReader) stringDisplay() ([]Item, bool) {
	closer := map[byte]byte{'[': ']', '(': ')', '{': '}'}[p.src[p.pos]]
	p.pos++
	var items []Item
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, false
		}
		if p.src[p.pos] == closer {
			p.pos++
			return items, len(items) > 0
		}
		it, ok, err := p.strings()
		if err != nil || !ok {
			return nil, false
		}
		items = append(items, it)
		if len(items) > maxItems {
			return nil, false
		}
		p.skipSpace()
		switch {
		case p.pos < len(p.src) && p.src[p.pos] == ',':
			p.pos++
		case p.pos < len(p.src) && p.src[p.pos] == closer:
		default:
			return nil, false // a dict, an expression, a comprehension
		}
	}
}

// pythonTarget finds what a display is the value of, from the text before
// it: "NAME =", "NAME: T =", "self.NAME =", "NAME=" (a keyword
// argument), "'key':" (a dict entry), possibly through calls such as
// frozenset( or tuple(.
var pythonTarget = regexp.MustCompile(`(?:([A-Za-z_][A-Za-z0-9_.]*)\s*(?::[^=\n]*)?=|["']([^"'\n]+)["']\s*:)\s*(?:[A-Za-z_][A-Za-z0-9_.]*\s*\(\s*)*$`)

// pythonName is the name of a display from the text before it.
func pythonName(before string) string {
	// A display on a line of its own belongs to the line before it:
	// "X = frozenset(\n    {...}".
	before = strings.TrimRight(before, " \t\r\n")
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	m := pythonTarget.FindStringSubmatch(before)
	switch {
	case m == nil:
		return ""
	case m[1] != "":
		return m[1]
	}
	return m[2]
}
