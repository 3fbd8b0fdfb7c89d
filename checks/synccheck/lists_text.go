package synccheck

import (
	"regexp"
	"strings"
)

// Lists of text: the lines of a plain list file (protected.txt, one item a
// line) and, in a file of any readable format, the lines between two
// marker lines ("# BEGIN protected paths" ... "# END protected paths").

// The marker lines: a comment (or a bare line) whose first word is BEGIN or
// START, and END, in any case; the rest of the begin line names the list.
var (
	beginMarker = regexp.MustCompile(`(?i)^\s*(?:#+|//+|--|;+|<!--|/\*|\{#|\.\.)?\s*(?:>{3,}\s*)?(?:begin|start)\b[\s:_-]*(.*?)\s*(?:-->|\*/|#\}|>{3,})?\s*$`)
	endMarker   = regexp.MustCompile(`(?i)^\s*(?:#+|//+|--|;+|<!--|/\*|\{#|\.\.)?\s*(?:<{3,}\s*)?end\b`)
)

// markerLists returns the lines between each begin marker and the next
// end marker, as items cleaned by lineItem.
func markerLists(src string) []List {
	lines := strings.Split(src, "\n")
	var lists []List
	for i := 0; i < len(lines) && len(lists) <= maxListsPerFile; i++ {
		m := beginMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		l := List{Kind: "lines between markers", Name: m[1], Line: i + 1}
		j := i + 1
		for ; j < len(lines) && !endMarker.MatchString(lines[j]); j++ {
			if v := lineItem(lines[j]); v != "" {
				l.Items = append(l.Items, Item{Value: v, Line: j + 1})
			}
		}
		if j == len(lines) {
			break // no end marker: not a list
		}
		lists = append(lists, l)
		i = j
	}
	return lists
}

// plainLines is the list of a plain list file: every line that is not
// blank and not a # comment.
func plainLines(src string) []List {
	l := List{Kind: "lines", Line: 1}
	for i, line := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if v := lineItem(line); v != "" {
			l.Items = append(l.Items, Item{Value: v, Line: i + 1})
		}
	}
	return []List{l}
}

// lineItem is the item a line of a text list holds: trimmed, without a
// comment leader, a list bullet, a trailing comma, and quotes or backticks
// around the whole.
func lineItem(line string) string {
	v := strings.TrimSpace(line)
	for _, lead := range []string{"#", "//", "--", ";"} {
		if strings.HasPrefix(v, lead) {
			v = strings.TrimSpace(strings.TrimLeft(v, lead[:1]))
			break
		}
	}
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(v, bullet) {
			v = strings.TrimSpace(v[len(bullet):])
			break
		}
	}
	v = strings.TrimSpace(strings.TrimSuffix(v, ","))
	if len(v) >= 2 {
		if q := v[0]; (q == '"' || q == '\'' || q == '`') && v[len(v)-1] == q {
			v = v[1 : len(v)-1]
		}
	}
	return v
}
