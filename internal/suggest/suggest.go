// Package suggest finds the name a user most likely meant: the "did you
// mean" of a mistyped flag, command, configuration key or revision.
package suggest

import "strings"

// Nearest is the name of names nearest to got (case does not count)
// within two edits and at most half of got's length in edits, so that a
// short word is not "corrected" into an unrelated one; the first of equal
// ones wins. It returns "" when no name is near enough or got is one of
// names.
func Nearest(got string, names []string) string {
	g := strings.ToLower(got)
	best, bestD := "", 3
	for _, n := range names {
		d := Distance(g, strings.ToLower(n))
		if d == 0 && n == got {
			return ""
		}
		if d < bestD && 2*d <= len([]rune(g)) {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the Damerau-Levenshtein distance of a and b (optimal string
// alignment): insertions, deletions, substitutions and the swap of two
// neighbours ("bda" and "bad") count one edit each.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
