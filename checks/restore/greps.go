// How one grep command reads its patterns, and the Go regular expression of each (BRE, ERE, -F, -P; -i, -x, -w).

package restore

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// grepMode is how grep reads its patterns.
type grepMode struct {
	syntax         byte // 'G' basic, 'E' extended, 'F' fixed, 'P' Perl
	icase, x, word bool
	// counts is true for -c, -q, -l and -L: grep then prints a count, a
	// file name or nothing, not the paths it keeps, so it is no filter.
	counts bool
}

// longFlags are grep's long options that change how it reads patterns,
// as their short letters.
var longFlags = map[string]byte{
	"extended-regexp": 'E', "fixed-strings": 'F', "basic-regexp": 'G', "perl-regexp": 'P',
	"ignore-case": 'i', "line-regexp": 'x', "word-regexp": 'w', "invert-match": 'v',
	"count": 'c', "quiet": 'q', "silent": 'q', "files-with-matches": 'l', "files-without-match": 'L',
}

// set applies one of grep's short options to the mode; -v is an error.
func (m *grepMode) set(f byte) error {
	switch f {
	case 'E', 'F', 'G', 'P':
		m.syntax = f
	case 'i', 'y':
		m.icase = true
	case 'x':
		m.x = true
	case 'w':
		m.word = true
	case 'c', 'q', 'l', 'L':
		m.counts = true
	case 'v':
		return errors.New("grep -v keeps the paths that do not match; the policy cannot be read as a list of protected paths")
	}
	return nil
}

// grepPatterns expands the arguments of one grep command and returns its
// patterns, as written, and how grep reads them.
func grepPatterns(c *syntax.CallExpr, x *expander, writes map[string][]string) ([]string, grepMode, error) {
	mode := grepMode{syntax: 'G'}
	switch c.Args[0].Lit() {
	case "egrep":
		mode.syntax = 'E'
	case "fgrep":
		mode.syntax = 'F'
	}
	args, err := x.fields(c.Args[1:]...)
	if err != nil {
		return nil, mode, fmt.Errorf("the grep arguments cannot be read: %w", err)
	}
	var pats, operands []string
	given := false
	readFile := func(name string) error {
		lines, ok := writes[name]
		if !ok {
			return fmt.Errorf("grep reads its patterns from %s, which the step does not write", name)
		}
		pats = append(pats, lines...)
		given = true
		return nil
	}
	takesArg := "efmABCdD"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "regexp", "file":
				if !hasVal {
					if i+1 >= len(args) {
						return nil, mode, fmt.Errorf("grep --%s has no value", name)
					}
					i++
					val = args[i]
				}
				if name == "regexp" {
					pats, given = append(pats, val), true
				} else if err := readFile(val); err != nil {
					return nil, mode, err
				}
			default:
				if f, ok := longFlags[name]; ok {
					if err := mode.set(f); err != nil {
						return nil, mode, err
					}
				}
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				f := a[j]
				if strings.IndexByte(takesArg, f) >= 0 {
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return nil, mode, fmt.Errorf("grep -%c has no value", f)
						}
						i++
						val = args[i]
					}
					switch f {
					case 'e':
						pats, given = append(pats, val), true
					case 'f':
						if err := readFile(val); err != nil {
							return nil, mode, err
						}
					}
					break
				}
				if err := mode.set(f); err != nil {
					return nil, mode, err
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if !given && len(operands) > 0 {
		pats = []string{operands[0]}
	}
	// grep splits each pattern at newlines into several patterns.
	var out []string
	for _, p := range pats {
		out = append(out, strings.Split(p, "\n")...)
	}
	return out, mode, nil
}

// goRegexp turns one grep pattern into a Go regular expression with the
// same matches on a path.
func (m grepMode) goRegexp(p string) (string, error) {
	var re string
	switch m.syntax {
	case 'F':
		re = regexp.QuoteMeta(p)
	case 'E':
		re = posixBrackets(p)
	case 'G':
		re = basicToExtended(p)
	case 'P':
		re = p
	}
	if m.word {
		re = `(?:^|\W)(?:` + re + `)(?:\W|$)`
	}
	if m.x {
		re = `^(?:` + re + `)$`
	}
	if m.icase {
		re = `(?i)` + re
	}
	if _, err := regexp.Compile(re); err != nil {
		return "", err
	}
	return re, nil
}

// posixBrackets copies an extended regular expression, doubling the
// backslashes inside bracket expressions: in POSIX a backslash there is a
// plain character, in Go it escapes.
func posixBrackets(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case c == '[':
			end := bracketEnd(p, i)
			if end < 0 {
				b.WriteString(p[i:])
				return b.String()
			}
			b.WriteString(strings.ReplaceAll(p[i:end+1], `\`, `\\`))
			i = end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// bracketEnd is the index of the "]" that closes the bracket expression
// that starts at p[i], or -1.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++ // a "]" first is a plain character
	}
	for ; j < len(p); j++ {
		switch {
		case p[j] == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '=' || p[j+1] == '.'):
			close := strings.Index(p[j+2:], string(p[j+1])+"]")
			if close < 0 {
				return -1
			}
			j += 2 + close + 1
		case p[j] == ']':
			return j
		}
	}
	return -1
}

// basicToExtended rewrites a POSIX basic regular expression (with GNU's
// \+, \? and \| operators) as an extended one for Go.
func basicToExtended(p string) string {
	var b strings.Builder
	atStart := true // where a "*" is a plain character
	for i := 0; i < len(p); i++ {
		c := p[i]
		start := atStart
		atStart = false
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			switch n {
			case '(', ')', '{', '}', '|', '+', '?':
				b.WriteByte(n)
				atStart = n == '(' || n == '|'
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[':
			end := bracketEnd(p, i)
			if end < 0 {
				b.WriteString(regexp.QuoteMeta(p[i:]))
				return b.String()
			}
			b.WriteString(strings.ReplaceAll(p[i:end+1], `\`, `\\`))
			i = end
		case c == '*' && start:
			b.WriteString(`\*`)
		case c == '^':
			b.WriteByte(c)
			atStart = i == 0 || start
		case strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
