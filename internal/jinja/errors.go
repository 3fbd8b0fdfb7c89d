package jinja

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/third_party/gonja/exec"
	"github.com/formula-code/template-verify/third_party/gonja/parser"
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

// Error is a parse or render error. File is the repository path of the
// template where the error is, which may be an included file; Line is 0
// when it is not known.
type Error struct {
	File  string
	Line  int
	Msg   string
	Panic bool // the engine panicked
	// Stopped is true when the render was stopped by a limit (time,
	// memory, stack) or the worker died: rendering the same template again
	// would most likely stop the same way.
	Stopped bool
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// chain returns err and every error it wraps, outermost first. gonja
// wraps errors in *exec.Value, which has no Unwrap; chain looks inside.
func chain(err error) []error {
	var out []error
	for err != nil && len(out) < 10000 {
		out = append(out, err)
		if v, ok := err.(*exec.Value); ok {
			if inner, ok := v.Interface().(error); ok && inner != error(v) {
				err = inner
				continue
			}
			break
		}
		err = errors.Unwrap(err)
	}
	return out
}

// own returns the part of a layer's message that is its own: gonja and
// pkg/errors write a wrapping layer as "own: inner".
func own(layer, inner error) string {
	s := layer.Error()
	if inner == nil {
		return s
	}
	in := inner.Error()
	if s == in {
		return ""
	}
	if t, ok := strings.CutSuffix(s, ": "+in); ok {
		return t
	}
	return ""
}

// posRe matches the layers that gonja's renderer adds with a line number.
var posRe = regexp.MustCompile(`^Unable to (?:render expression|render condition|evaluation condition as boolean|execute controlStructure) at line (\d+)`)

// csPrefixRe matches the description of a statement that gonja puts in
// front of the message of an error inside it.
var csPrefixRe = regexp.MustCompile(`^(?:\w+ControlStructure\([^)]*\): )+`)

var undefinedRe = regexp.MustCompile(`^Unable to evaluate name "([^"]*)"$`)

// renderError turns a render error of the template file into an *Error.
// An *Error inside it (from an included file) is returned as it is; else
// the line is the innermost line that gonja's renderer recorded.
func renderError(file string, err error) error {
	layers := chain(err)
	for _, l := range layers {
		if je, ok := l.(*Error); ok {
			return je
		}
	}
	line, at := 0, -1
	for i, l := range layers {
		var next error
		if i+1 < len(layers) {
			next = layers[i+1]
		}
		if m := posRe.FindStringSubmatch(own(l, next)); m != nil {
			line, _ = strconv.Atoi(m[1])
			at = i
		}
	}
	msg := ""
	if at >= 0 && at+1 < len(layers) {
		msg = layers[at+1].Error()
	} else {
		msg = strings.TrimPrefix(err.Error(), "unable to execute template: ")
	}
	return &Error{File: file, Line: line, Msg: shorten(cleanRenderMessage(msg))}
}

// maxMsg is the longest message an Error keeps. gonja repeats its wrapping
// text at every level of a recursion; the end of the message is the cause.
const maxMsg = 400

// shorten keeps the last parts ("a: b: cause") of a long message.
func shorten(s string) string {
	if len(s) <= maxMsg {
		return s
	}
	parts := strings.Split(s, ": ")
	out := ""
	for i := len(parts) - 1; i >= 0; i-- {
		next := parts[i]
		if out != "" {
			next += ": " + out
		}
		if len(next) > maxMsg-4 {
			break
		}
		out = next
	}
	if out == "" {
		r := []rune(s)
		out = string(r[max(0, len(r)-(maxMsg-4)):])
	}
	return "…: " + out
}

// tokenRe matches gonja's dump of a token in a message.
var tokenRe = regexp.MustCompile(`<Token\[\w+\] Val='((?s:.*?))' Pos=\d+ Line=\d+ Col=\d+>`)

// filterDumpRe matches gonja's dump of a filter call in a message.
var filterDumpRe = regexp.MustCompile(`unable to evaluate filter &\{<Token\[\w+\] Val='[^']*' Pos=\d+ Line=\d+ Col=\d+> \w+ [^}]*\}: `)

// guardFuncRe matches the Go name of a guarded macro, which gonja prints
// when a macro is called through an attribute (m.name()).
var guardFuncRe = regexp.MustCompile(`function '[^']*internal/jinja\.guardName[^']*'`)

// cleanTokens replaces gonja's token dumps in a message with the token's text.
func cleanTokens(s string) string {
	s = guardFuncRe.ReplaceAllString(s, "function 'macro'")
	s = filterDumpRe.ReplaceAllString(s, "")
	return tokenRe.ReplaceAllString(s, "'$1'")
}

func cleanRenderMessage(s string) string {
	s = cleanTokens(csPrefixRe.ReplaceAllString(s, ""))
	if m := undefinedRe.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("'%s' is undefined", m[1])
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "render error"
	}
	return s
}

// parseError turns a parse error of the template name (source src) into an
// *Error. The line comes from gonja's SyntaxError; when gonja gives none,
// it comes from where the parser stopped.
func (e *Env) parseError(name, src string, err error) error {
	// exec.NewTemplate wraps the parser's error in a message that holds the
	// whole template source; drop that layer.
	if inner := errors.Unwrap(err); inner != nil && strings.HasPrefix(err.Error(), "failed to parse template ") {
		err = inner
	}
	layers := chain(err)
	for _, l := range layers {
		if je, ok := l.(*Error); ok {
			return je
		}
	}
	line := 0
	var parts []string
	for i, l := range layers {
		if se, ok := l.(*parser.SyntaxError); ok {
			line = se.Line
			parts = append(parts, nearText(se))
			break
		}
		var next error
		if i+1 < len(layers) {
			next = layers[i+1]
		}
		if next == nil {
			parts = append(parts, l.Error())
		} else if o := own(l, next); o != "" {
			parts = append(parts, o)
		}
	}
	msg := cleanTokens(strings.TrimSpace(strings.Join(parts, ": ")))
	if b, endLine, ok := e.mismatchedEnd(src); ok && strings.Contains(msg, "'end") {
		return &Error{File: e.file(name), Line: b.line, Msg: fmt.Sprintf(
			"syntax error: the %q block that starts here is not closed before the end tag at line %d (%s)", b.name, endLine, shorten(msg))}
	}
	if strings.Contains(msg, "Unexpected EOF") {
		if b, ok := e.unclosedBlock(src); ok {
			return &Error{File: e.file(name), Line: b.line, Msg: fmt.Sprintf(
				"syntax error: the template ends before the end of the %q block that starts here (%s)", b.name, msg)}
		}
	}
	if line == 0 {
		line = e.stopLine(name, src)
	}
	return &Error{File: e.file(name), Line: line, Msg: "syntax error: " + shorten(msg)}
}

// nearText is a SyntaxError's message with the text it points at.
func nearText(se *parser.SyntaxError) string {
	msg := strings.TrimSpace(se.Message)
	raw := strings.TrimSpace(se.Raw)
	if raw == "" || len(raw) > 40 {
		return msg
	}
	return fmt.Sprintf("%s (near %q)", msg, raw)
}

// stopLine parses src again and returns the line of the last token the
// parser took before it failed: the end of the statement that failed when
// the error is in a statement's arguments, which gonja does not locate.
func (e *Env) stopLine(name, src string) (line int) {
	defer func() { _ = recover() }() // line keeps what was found before a panic
	p := parser.NewParser("/"+name, tokens.LexAll(src, e.cfg), e.cfg, e.loader, environment.ControlStructures)
	if _, err := p.Parse(); err == nil {
		return 0
	}
	s := p.Stream()
	cur := s.Current()
	if cur != nil && cur.Line > 0 {
		line = cur.Line
	}
	s.Backup() // panics when there is no previous token; line keeps cur's
	if prev := s.Current(); prev != nil && prev.Line > 0 {
		line = prev.Line
	}
	return line
}
