// Package shparse is the one way the tool parses shell text that a pull
// request wrote (a rendered script, a restore step, a file of the
// repository) with mvdan.cc/sh.
//
// The parser of mvdan.cc/sh, syntax.Walk and the tool's own readers
// recurse once for each level of nesting ($( ... ), ( ... ), { ... },
// [ ... ], backquotes) and once for each operator of a chain (a && b && c,
// a | b | c, 1+1+1 in arithmetic, if/while/case inside each other). A
// script nested about a million levels deep ends the Go runtime with
// "fatal error: stack overflow", which no recover() catches. Measured
// with mvdan.cc/sh v3.14.1: 100,000 levels of $( ) take 512 MiB of stack
// to parse and walk; 100,000 "&& x" take 256 MiB.
//
// So Parse first reads the text without recursion and refuses it when
// it is larger, or nests deeper, than Limits allow. The refusal is a
// *LimitError that says which limit and where; a caller reports it as a
// check that did not run, or as a finding, never as a pass.
package shparse

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits bound the shell text that Parse accepts.
type Limits struct {
	// MaxBytes is the largest text, in bytes.
	MaxBytes int
	// MaxDepth is the deepest nesting of brackets, braces, $( ),
	// backquotes and double quotes outside quotes, comments and
	// here-document bodies, as a scan without recursion counts it.
	MaxDepth int
	// MaxNesters is the most characters and keywords that can each add
	// one level to the parser's recursion or to the syntax tree, counted
	// everywhere in the text, quotes and comments included: ( ) { } [ ]
	// ` $ | & ! < > + - * / % ^ ~ , ? : = and the words if, while, until,
	// for, select, case, time, coproc, function, let. This count is an
	// upper bound of the parser's depth that no quoting can hide.
	MaxNesters int
}

// Default are the limits Parse uses. A rendered datasmith test.sh (about
// 25 KB) has a depth under 10 and fewer than 3,000 nesters. At the
// MaxNesters limit the parser and a walk of its tree use at most about
// 60 MiB of stack.
var Default = Limits{MaxBytes: 1 << 20, MaxDepth: 200, MaxNesters: 20000}

// LimitError says that a shell text is past one of the Limits.
type LimitError struct {
	// What names the limit: "size", "nesting depth" or "nesters".
	What string
	// Got is the value found (for nesting depth: the first depth past
	// the limit, as the scan stops there), Max the limit.
	Got, Max int
	// Line is the line (1-based) where the limit was passed, 0 for size.
	Line int
}

func (e *LimitError) Error() string {
	switch e.What {
	case "size":
		return fmt.Sprintf("the shell text has %d bytes, more than the shell reader's limit of %d", e.Got, e.Max)
	case "nesting depth":
		return fmt.Sprintf("the shell text nests more than %d levels deep at line %d (brackets, braces, $( ), quotes), past the shell reader's limit", e.Max, e.Line)
	default:
		return fmt.Sprintf("the shell text has more than %d brackets, operators and compound-command keywords (line %d), past the shell reader's limit", e.Max, e.Line)
	}
}

// IsLimit reports whether err is or wraps a *LimitError.
func IsLimit(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}

// Parse checks src against Default and parses it as bash.
func Parse(src string) (*syntax.File, error) {
	return ParseWith(src, Default)
}

// ParseWith checks src against l and parses it as bash. A text past a
// limit is a *LimitError, and the parser never sees it.
func ParseWith(src string, l Limits) (*syntax.File, error) {
	if err := Check(src, l); err != nil {
		return nil, err
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		// The parser's error says where and what ("172:1: `if` statement
		// must end with `fi`"); each caller says what it parsed.
		return nil, err
	}
	return f, nil
}

// Check reads src once, without recursion, and returns a *LimitError
// when it is past a limit of l.
func Check(src string, l Limits) error {
	// The most telling reason first: a deep text is refused as deep
	// before its size is counted.
	if line := depth(src, l.MaxDepth); line > 0 {
		return &LimitError{What: "nesting depth", Got: l.MaxDepth + 1, Max: l.MaxDepth, Line: line}
	}
	if line := nesters(src, l.MaxNesters); line > 0 {
		return &LimitError{What: "nesters", Got: l.MaxNesters + 1, Max: l.MaxNesters, Line: line}
	}
	if len(src) > l.MaxBytes {
		return &LimitError{What: "size", Got: len(src), Max: l.MaxBytes}
	}
	return nil
}

// nesterByte marks the characters that count as nesters.
var nesterByte = func() (t [256]bool) {
	for _, c := range []byte("(){}[]`$|&!<>+-*/%^~,?:=") {
		t[c] = true
	}
	return t
}()

var nesterWord = map[string]bool{
	"if": true, "while": true, "until": true, "for": true, "select": true, "case": true,
	"time": true, "coproc": true, "function": true, "let": true,
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// nesters counts the nesters of src and returns the line on which the
// count passes max, or 0.
func nesters(src string, max int) int {
	n, line := 0, 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			continue
		case nesterByte[c]:
			n++
		case isWordByte(c) && (i == 0 || !isWordByte(src[i-1])):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			if nesterWord[src[i:j]] {
				n++
			}
			i = j - 1
		}
		if n > max {
			return line
		}
	}
	return 0
}

// depth scans src as bash quotes it and returns the line on which the
// nesting passes max, or 0. Inside single quotes, comments and
// here-document bodies nothing nests; inside double quotes only $( ),
// ${ } and backquotes do. A closer closes only an opener of its kind.
func depth(src string, max int) int {
	var stack []byte // '(' '{' '[' '`' '"'
	top := func() byte {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1]
	}
	push := func(k byte) bool {
		stack = append(stack, k)
		return len(stack) > max
	}
	pop := func(k byte) {
		if top() == k {
			stack = stack[:len(stack)-1]
		}
	}
	line := 1
	var heredocs []string // delimiters whose bodies start at the next newline
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\n' {
			line++
		}
		if top() == '"' {
			switch c {
			case '\\':
				if i+1 < len(src) && src[i+1] == '\n' {
					line++
				}
				i++
			case '"':
				pop('"')
			case '`':
				if push('`') {
					return line
				}
			case '$':
				if i+1 < len(src) && (src[i+1] == '(' || src[i+1] == '{') {
					i++
					if push(src[i]) {
						return line
					}
				}
			}
			continue
		}
		switch c {
		case '\n':
			for _, d := range heredocs {
				i, line = skipHeredoc(src, i+1, d, line)
			}
			heredocs = heredocs[:0]
		case '\\':
			if i+1 < len(src) && src[i+1] == '\n' {
				line++
			}
			i++
		case '\'':
			dollar := i > 0 && src[i-1] == '$'
			for i++; i < len(src) && src[i] != '\''; i++ {
				if src[i] == '\n' {
					line++
				}
				if dollar && src[i] == '\\' {
					i++
				}
			}
		case '#':
			if i == 0 || strings.IndexByte(" \t\n;&|(", src[i-1]) >= 0 {
				for i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
			}
		case '"':
			if push('"') {
				return line
			}
		case '`':
			if top() == '`' {
				pop('`')
			} else if push('`') {
				return line
			}
		case '(', '{', '[':
			if push(c) {
				return line
			}
		case ')':
			pop('(')
		case '}':
			pop('{')
		case ']':
			pop('[')
		case '<':
			if strings.HasPrefix(src[i:], "<<") && !strings.HasPrefix(src[i:], "<<<") {
				d, next := heredocDelim(src, i+2)
				if d != "" {
					heredocs = append(heredocs, d)
				}
				i = next - 1
			}
		}
	}
	return 0
}

// heredocDelim reads the delimiter word of a here-document that starts
// at src[i:] (after "<<"), with its quotes removed. A leading "-" (<<-)
// is kept, so that skipHeredoc strips tabs. next is the index after it.
func heredocDelim(src string, i int) (delim string, next int) {
	dash := ""
	if i < len(src) && src[i] == '-' {
		dash = "-"
		i++
	}
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	var sb strings.Builder
	for ; i < len(src); i++ {
		c := src[i]
		if strings.IndexByte(" \t\n;&|<>()", c) >= 0 {
			break
		}
		if c == '\'' || c == '"' || c == '\\' {
			continue
		}
		sb.WriteByte(c)
	}
	if sb.Len() == 0 {
		return "", i
	}
	return dash + sb.String(), i
}

// skipHeredoc skips the body of a here-document that starts at src[i:]
// and returns the index of the newline that ends its last line, and the
// line number there.
func skipHeredoc(src string, i int, delim string, line int) (int, int) {
	strip := strings.HasPrefix(delim, "-")
	delim = strings.TrimPrefix(delim, "-")
	for i < len(src) {
		end := strings.IndexByte(src[i:], '\n')
		if end < 0 {
			return len(src), line
		}
		l := src[i : i+end]
		if strip {
			l = strings.TrimLeft(l, "\t")
		}
		i += end
		line++
		if l == delim {
			return i, line
		}
		i++
	}
	return i, line
}
