package synccheck

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/internal/shparse"
)

// Item is one element of a copy, with the 1-based line where it is.
type Item struct {
	Value string
	Line  int
}

// errNotFound says that the file has no such array, name or marker: the
// copy is missing.
var errNotFound = errors.New("not found")

// BashArray returns the elements of the bash array name in src: every
// assignment "name=(...)" (also under declare, local, readonly) in source
// order, a "+=" appending. Quoted and plain literal words are their
// values; a word with an expansion is kept as its source text.
//
// A script that does not parse as a whole (a syntax error elsewhere, which
// the render check reports) is read assignment by assignment: from each
// line that assigns the array, the shortest run of lines that parses.
func BashArray(src, name string) ([]Item, error) {
	items, _, err := bashArray(src, name)
	return items, err
}

// bashArray is BashArray that also counts the parses it made.
func bashArray(src, name string) ([]Item, int, error) {
	f, err := shparse.Parse(src)
	parses := 1
	if err == nil {
		items, err := bashItems([]*syntax.File{f}, []string{src}, []int{0}, name)
		return items, parses, err
	}
	start := regexp.MustCompile(`(^|[\s;(])` + regexp.QuoteMeta(name) + `\+?=\(`)
	lines := strings.SplitAfter(src, "\n")
	var files []*syntax.File
	var srcs []string
	var offsets []int
	tried := 0
	for i, l := range lines {
		if !start.MatchString(l) {
			continue
		}
		if tried++; tried > maxArrayStarts {
			break
		}
		for j := i + 1; j <= len(lines) && j <= i+maxArrayLines; j++ {
			part := strings.Join(lines[i:j], "")
			parses++
			if pf, perr := shparse.Parse(part); perr == nil {
				files, srcs, offsets = append(files, pf), append(srcs, part), append(offsets, i)
				break
			}
		}
	}
	if len(files) == 0 {
		return nil, parses, fmt.Errorf("bash: %w", err)
	}
	items, err := bashItems(files, srcs, offsets, name)
	return items, parses, err
}

// maxArrayLines bounds the lines of one array assignment read on its own,
// maxArrayStarts the assignments read that way.
const (
	maxArrayLines  = 200
	maxArrayStarts = 20
)

// bashItems walks parsed files (pieces of one script, each starting at
// line offset+1) for the assignments of the array name.
func bashItems(files []*syntax.File, srcs []string, offsets []int, name string) ([]Item, error) {
	var items []Item
	found := false
	for k, f := range files {
		src, offset := srcs[k], offsets[k]
		syntax.Walk(f, func(n syntax.Node) bool {
			a, ok := n.(*syntax.Assign)
			if !ok || a.Name == nil || a.Name.Value != name || a.Array == nil {
				return true
			}
			if !a.Append {
				items = nil
			}
			found = true
			for _, el := range a.Array.Elems {
				if el.Value == nil {
					continue
				}
				items = append(items, Item{Value: wordValue(src, el.Value), Line: offset + int(el.Value.Pos().Line())})
			}
			return true
		})
	}
	if !found {
		return nil, fmt.Errorf("no bash array %s: %w", name, errNotFound)
	}
	return items, nil
}

// wordValue is the value of a literal word, or its source text.
func wordValue(src string, w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeBare(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return sourceOf(src, w)
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return sourceOf(src, w)
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return sourceOf(src, w)
		}
	}
	return b.String()
}

func sourceOf(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

// unescapeBare removes the backslashes of an unquoted word.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that escape $ ` " \ inside
// double quotes; any other backslash stays.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Between returns the lines strictly between the first line that matches
// start and the next line that matches end, or the end of the file when no
// later line matches (a list at the end of a file, such as a YAML list,
// has no closing line), trimmed, without empty lines.
func Between(src, start, end string) ([]Item, error) {
	sre, err := regexp.Compile(start)
	if err != nil {
		return nil, fmt.Errorf("between.start: %w", err)
	}
	ere, err := regexp.Compile(end)
	if err != nil {
		return nil, fmt.Errorf("between.end: %w", err)
	}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !sre.MatchString(l) {
			continue
		}
		var items []Item
		for j := i + 1; j < len(lines); j++ {
			if ere.MatchString(lines[j]) {
				return items, nil
			}
			if t := strings.TrimSpace(lines[j]); t != "" {
				items = append(items, Item{Value: t, Line: j + 1})
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("no line matches the start marker %s: %w", start, errNotFound)
}

// JinjaDefault returns the argument of the first default filter applied to
// the variable name in a template source: "name | default([...])" or
// "name|d('...')". A list, tuple or set of strings gives its strings; one
// string gives one item.
func JinjaDefault(src, name string) ([]Item, error) {
	re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(name) + `\s*\|\s*(?:default|d)\s*\(`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("no default filter on %s: %w", name, errNotFound)
	}
	p := &pyReader{src: src, pos: loc[1]}
	p.skipSpace()
	if s, ok, err := p.strings(); err != nil {
		return nil, fmt.Errorf("the default of %s: %w", name, err)
	} else if ok {
		return []Item{s}, nil
	}
	items, err := p.collection()
	if err != nil {
		return nil, fmt.Errorf("the default of %s: %w", name, err)
	}
	return items, nil
}
