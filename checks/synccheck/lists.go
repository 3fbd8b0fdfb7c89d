package synccheck

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// List is one list literal of a file: a bash array, the -e words or -f
// files of a grep command, the globs of a case arm, a Python list, tuple or
// set, a YAML or JSON list, a TOML array, the lines of a plain list file or
// the lines between two markers. Only lists of at least minItems strings
// are kept.
type List struct {
	Path string
	// Kind says what the list is, for a reader: "bash array", "YAML list".
	Kind string
	// Name is what the file calls the list: the array or variable name, the
	// key path of a YAML, JSON or TOML list; empty for a list without one.
	Name string
	// Key identifies the list in its file from base to head: the name and
	// its ordinal among lists of the same kind and name.
	Key   string
	Line  int
	Items []Item
}

// label names the list for a finding: "test.sh:12 (bash array pats)".
func (l List) label() string {
	s := fmt.Sprintf("%s:%d (%s", l.Path, l.Line, l.Kind)
	if l.Name != "" {
		s += " " + l.Name
	}
	return s + ")"
}

// unordered reports whether the list is a set in its format: a Python
// set or frozenset, the globs of a case arm. Its order means nothing.
func unordered(l List) bool { return l.Kind == "Python set" || l.Kind == "case globs" }

// values are the items' values, in order.
func (l List) values() []string {
	out := make([]string, len(l.Items))
	for i, it := range l.Items {
		out[i] = it.Value
	}
	return out
}

// The bounds of list discovery.
const (
	// minItems is the fewest items of a list that discovery keeps: two
	// equal pairs are too often chance.
	minItems = 3
	// maxItems is the most items of a list that discovery keeps.
	maxItems = 5000
	// maxListsPerFile is the most lists read from one file.
	maxListsPerFile = 1000
)

// format is how a file's lists are read.
type format string

const (
	formatBash   format = "bash"
	formatPython format = "python"
	formatYAML   format = "yaml"
	formatJSON   format = "json"
	formatTOML   format = "toml"
	// formatLines is a plain list file: one item a line.
	formatLines format = "lines"
	// formatProse is a document: only its lists between markers.
	formatProse format = "prose"
)

// lineExts and proseExts are the suffixes of formatLines and formatProse.
var (
	lineExts  = []string{".txt", ".lst", ".list"}
	proseExts = []string{".md", ".rst"}
)

// jinjaExts are the suffixes of a template that hide its own format
// ("test.sh.j2" is a shell script).
var jinjaExts = []string{".j2", ".jinja", ".jinja2"}

// formatOf is the format of file p by its name, or by a shell's #! line;
// "" when discovery does not read it.
func formatOf(p string, src []byte) format {
	name := path.Base(p)
	for _, e := range jinjaExts {
		name = strings.TrimSuffix(name, e)
	}
	switch path.Ext(name) {
	case ".sh", ".bash":
		return formatBash
	case ".py", ".pyi":
		return formatPython
	case ".yml", ".yaml":
		return formatYAML
	case ".json":
		return formatJSON
	case ".toml":
		return formatTOML
	case ".txt", ".lst", ".list":
		return formatLines
	case ".md", ".rst":
		return formatProse
	case "":
		if line, _, _ := strings.Cut(string(src[:min(len(src), 128)]), "\n"); shebangShell.MatchString(line) {
			return formatBash
		}
	}
	return ""
}

var shebangShell = regexp.MustCompile(`^#!.*\b(ba)?sh\b`)

// readable reports whether discovery reads the file p, by its name: a
// known extension, or none (a script whose #! names a shell).
func readable(p string) bool {
	name := path.Base(p)
	for _, e := range jinjaExts {
		name = strings.TrimSuffix(name, e)
	}
	ext := path.Ext(name)
	return ext == "" || slices.Contains([]string{".sh", ".bash", ".py", ".pyi", ".yml", ".yaml", ".json", ".toml"}, ext) ||
		slices.Contains(lineExts, ext) || slices.Contains(proseExts, ext)
}

// ListsOf returns the lists of at least minItems strings in the file p, in
// source order, at most maxListsPerFile. A template (template true) is read
// as its source with the Jinja tags blanked (see dejinja). err says the
// file does not parse in its format; a file of no known format has no lists.
func ListsOf(p string, src []byte, template bool) ([]List, error) {
	return listsOf(p, src, template, minItems)
}

// listsOf is ListsOf that keeps lists of at least least items.
func listsOf(p string, src []byte, template bool, least int) ([]List, error) {
	f := formatOf(p, src)
	if f == "" {
		return nil, nil
	}
	text := string(src)
	if template || slices.Contains(jinjaExts, path.Ext(p)) {
		text = dejinja(text)
	}
	var lists []List
	var err error
	switch f {
	case formatBash:
		lists, err = bashLists(text)
	case formatPython:
		lists = pythonLists(text)
	case formatYAML:
		lists, err = yamlLists(text)
	case formatJSON:
		lists, err = jsonLists(text)
	case formatTOML:
		lists, err = tomlLists(text)
	case formatLines:
		lists = plainLines(text)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	lists = append(lists, markerLists(text)...)
	return finish(p, lists, least), nil
}

// finish sets the lists' path and key, and keeps, up to maxListsPerFile,
// those of at least least items; with least > 0 (discovery at the base),
// none that holds a Jinja expression and no anonymous Python display. At the head (least 0) such a list is
// kept: an item turned into an expression is a difference.
func finish(p string, lists []List, least int) []List {
	// Keys are given before the filter, so that a list keeps its key when
	// another list of the file grows or shrinks past least.
	seen := map[string]int{}
	for i := range lists {
		l := &lists[i]
		l.Path = p
		id := l.Kind + " " + l.Name
		l.Key = fmt.Sprintf("%s #%d", id, seen[id])
		seen[id]++
	}
	out := lists[:0]
	for _, l := range lists {
		if len(l.Items) < least || len(l.Items) > maxItems {
			continue
		}
		if least > 0 && (anonymousPython(l) || slices.ContainsFunc(l.Items, func(it Item) bool { return strings.Contains(it.Value, jinjaPlaceholder) })) {
			continue
		}
		out = append(out, l)
		if len(out) == maxListsPerFile {
			break
		}
	}
	return out
}

// anonymousPython reports whether l is a Python display that is no
// assignment's, keyword argument's or dict key's value, such as the
// arguments ["git", "rev-parse", "--show-toplevel"] of a call or the
// tuple of "x in (...)". Such lists recur in unrelated files by chance
// and are not kept in sync; discovery leaves them out.
func anonymousPython(l List) bool {
	return l.Name == "" && strings.HasPrefix(l.Kind, "Python")
}

// jinjaPlaceholder stands for a {{ ... }} expression of a template: a word
// in every format, and no list that holds it is kept.
const jinjaPlaceholder = "__jinja_expr__"

var jinjaTag = regexp.MustCompile(`(?s)\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}`)

// dejinja blanks the Jinja tags of a template source so that its format's
// parser reads what is left: a statement or comment becomes nothing, an
// expression the placeholder word. Newlines stay, so lines do not move.
func dejinja(src string) string {
	if !strings.Contains(src, "{{") && !strings.Contains(src, "{%") && !strings.Contains(src, "{#") {
		return src
	}
	return jinjaTag.ReplaceAllStringFunc(src, func(tag string) string {
		nl := strings.Repeat("\n", strings.Count(tag, "\n"))
		if strings.HasPrefix(tag, "{{") {
			return jinjaPlaceholder + nl
		}
		return nl
	})
}

// lineIndex answers the line of a byte offset.
type lineIndex []int

func newLineIndex(src string) lineIndex { return lineIndex(newlines(src)) }

// line is the 1-based line of offset at.
func (nl lineIndex) line(at int) int {
	n, _ := slices.BinarySearch(nl, at)
	return n + 1
}
