// Package textdiff computes line diffs of rendered templates and formats them
// as unified diffs. The diff itself is github.com/aymanbagabas/go-udiff (the
// Myers diff of gopls); this package adds the line counts the checks report.
// docs/dependencies.md says why it replaced the hand-written LCS diff.
package textdiff

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Stats counts added and removed lines.
type Stats struct{ Added, Removed int }

// Lines splits s into lines, keeping a final line without a newline.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Unified returns the unified diff of a and b with context lines of
// context, and the line counts. An empty string means no difference.
func Unified(nameA, nameB, a, b string, context int) (string, Stats) {
	edits := udiff.Lines(a, b)
	var st Stats
	for _, e := range edits {
		st.Removed += len(Lines(a[e.Start:e.End]))
		st.Added += len(Lines(e.New))
	}
	if st.Added == 0 && st.Removed == 0 {
		return "", st
	}
	d, err := udiff.ToUnified(nameA, nameB, a, edits, context)
	if err != nil {
		// The edits come from udiff.Lines on a itself, so they always
		// apply; an error here is a bug in the library.
		panic("textdiff: " + err.Error())
	}
	return d, st
}

// Changed returns the added and removed lines (without their newline), in
// order, for summaries.
func Changed(a, b string) (added, removed []string) {
	for _, e := range udiff.Lines(a, b) {
		for _, l := range Lines(a[e.Start:e.End]) {
			removed = append(removed, strings.TrimSuffix(l, "\n"))
		}
		for _, l := range Lines(e.New) {
			added = append(added, strings.TrimSuffix(l, "\n"))
		}
	}
	return added, removed
}
