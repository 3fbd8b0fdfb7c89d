package archive

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"
)

// hunkHeader matches a unified diff's hunk header.
var hunkHeader = regexp.MustCompile(`(?m)^@@ [^@]* @@`)

// group adds a member's diff to its group: the diff without its file
// names and line numbers, with the masks applied.
func (d *Diff) group(name, diff string, masks []Mask) {
	body := diff
	for range 2 { // the --- and +++ lines
		if _, rest, ok := strings.Cut(body, "\n"); ok {
			body = rest
		}
	}
	masked := hunkHeader.ReplaceAllString(body, "@@")
	for _, m := range masks {
		masked = m.Re.ReplaceAllString(masked, m.Replace)
	}
	sum := sha256.Sum256([]byte(masked)) // the key: memory does not grow with the diffs
	key := string(sum[:])
	if len(diff) > maxExample {
		diff = diff[:maxExample] + fmt.Sprintf("\n(the diff is cut at %d bytes)\n", maxExample)
	}
	if g, ok := d.groupIndex[key]; ok {
		g.Count++
		return
	}
	if len(d.Groups) >= maxGroups {
		d.GroupsCut++
		d.groupIndex[key] = &Group{Count: 1}
		return
	}
	g := &Group{Count: 1, Example: name, Diff: diff}
	d.groupIndex[key] = g
	d.Groups = append(d.Groups, g)
}

// Distinct is the number of distinct diffs after masking.
func (d *Diff) Distinct() int { return len(d.Groups) + d.GroupsCut }
