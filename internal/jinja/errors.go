package jinja

import (
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/parser"
)

type ioReader = io.Reader

var lineRe = regexp.MustCompile(`(?i)\bline[ =:]*(\d+)`)

// lineOf finds the line an error points at: a parser SyntaxError carries it;
// render errors name it in their text ("at line 3"); the innermost (last)
// mention is the most precise.
func lineOf(err error) int {
	var se *parser.SyntaxError
	if errors.As(err, &se) && se.Line > 0 {
		return se.Line
	}
	m := lineRe.FindAllStringSubmatch(err.Error(), -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// cleanMessage drops gonja's wrapping noise and the template source that
// parse errors embed.
func cleanMessage(s string) string {
	if i := strings.Index(s, "failed to parse template '"); i >= 0 {
		if j := strings.LastIndex(s, "': "); j > i {
			s = "syntax error: " + s[j+3:]
		}
	}
	s = strings.TrimPrefix(s, "unable to execute template: ")
	return strings.TrimSpace(s)
}
