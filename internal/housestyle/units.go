package housestyle

import (
	"regexp"
	"strings"
)

// unitKind says which rules apply to a unit of text.
type unitKind int

const (
	unitProse   unitKind = iota // paragraphs, list items, HTML text: all rules
	unitHeading                 // words are not counted
	unitTable                   // words are not counted
)

// part is the text of one line in a unit.
type part struct {
	line int
	// words has code spans as one placeholder word, links as their text
	// and URLs as one placeholder word: for counting and banned words.
	words string
	// hosts has code spans masked and links as their text, but bare URLs
	// kept: for the host-name rule. A link target is an address the
	// reader follows (a check run, a file line), not text the reader
	// reads.
	hosts string
}

// unit is a paragraph, the first paragraph of a list item, a heading, a
// table row or the text of an HTML line.
type unit struct {
	kind    unitKind
	step    bool
	section string
	parts   []part
}

// units groups the lines that hold prose into units.
func units(lines []line) []unit {
	var out []unit
	var cur *unit
	flush := func() {
		if cur != nil && len(cur.parts) > 0 {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, l := range lines {
		switch l.kind {
		case kindProse:
			if l.item || cur == nil {
				flush()
				cur = &unit{kind: unitProse, section: l.section}
				cur.step = l.item && l.ordered && !strings.EqualFold(l.section, "Changes")
			}
			cur.parts = append(cur.parts, newPart(l.n, l.text))
		case kindHeading, kindTable, kindHTML:
			flush()
			k := unitProse
			if l.kind == kindHeading {
				k = unitHeading
			} else if l.kind == kindTable {
				k = unitTable
			}
			if t := strings.TrimSpace(l.text); t != "" {
				out = append(out, unit{kind: k, section: l.section, parts: []part{newPart(l.n, t)}})
			}
		default:
			flush()
		}
	}
	flush()
	return out
}

var (
	imageRe    = regexp.MustCompile(`!\[([^\]]*)\]\(([^)\s]*)[^)]*\)`)
	linkRe     = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)[^)]*\)`)
	autolinkRe = regexp.MustCompile(`<((?:https?|ftp|mailto):[^>\s]*)>`)
	urlRe      = regexp.MustCompile(`\b(?:https?|ftp)://[^\s)>\]]+`)
)

// newPart masks one line of text for the rules.
func newPart(n int, text string) part {
	code := maskCode(text)
	words := imageRe.ReplaceAllString(code, "$1")
	words = linkRe.ReplaceAllString(words, "$1")
	words = autolinkRe.ReplaceAllString(words, "URL")
	words = urlRe.ReplaceAllString(words, "URL")
	words = tagRe.ReplaceAllString(words, " ")
	hosts := imageRe.ReplaceAllString(code, "$1 $2")
	hosts = linkRe.ReplaceAllString(hosts, "$1")
	return part{line: n, words: words, hosts: hosts}
}

// maskCode replaces each inline code span with the word CODE. A span opens
// with a run of backticks and closes with the next run of the same length;
// a run with no such partner stays as it is. It runs in linear time.
func maskCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	type span struct{ at, n int }
	var runs []span
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		runs = append(runs, span{i, j - i})
		i = j
	}
	// next[k] is the index of the next run with the same length as run k.
	next := make([]int, len(runs))
	last := map[int]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		next[k] = -1
		if m, ok := last[runs[k].n]; ok {
			next[k] = m
		}
		last[runs[k].n] = k
	}
	var b strings.Builder
	pos := 0
	for k := 0; k < len(runs); k++ {
		r := runs[k]
		if r.at < pos || next[k] < 0 {
			continue
		}
		c := runs[next[k]]
		b.WriteString(s[pos:r.at])
		b.WriteString("CODE")
		pos = c.at + c.n
		k = next[k]
	}
	b.WriteString(s[pos:])
	return b.String()
}
