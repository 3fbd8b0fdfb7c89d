// Package textdiff computes line diffs of rendered templates and formats them
// as unified diffs.
package textdiff

import (
	"fmt"
	"strings"
)

// MaxCells bounds the work of one diff (lines of a times lines of b). Larger
// inputs get a coarse diff: everything removed, everything added.
const MaxCells = 16_000_000

type opKind byte

const (
	opEqual opKind = ' '
	opDel   opKind = '-'
	opAdd   opKind = '+'
)

type op struct {
	kind opKind
	text string
	a, b int // 0-based line numbers in a and b
}

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
	la, lb := Lines(a), Lines(b)
	ops := diff(la, lb)
	var st Stats
	for _, o := range ops {
		switch o.kind {
		case opAdd:
			st.Added++
		case opDel:
			st.Removed++
		}
	}
	if st.Added == 0 && st.Removed == 0 {
		return "", st
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	for _, h := range hunks(ops, context) {
		writeHunk(&sb, ops[h[0]:h[1]])
	}
	return sb.String(), st
}

// diff is a longest-common-subsequence line diff; it trims the common
// prefix and suffix first, so typical template edits cost little.
func diff(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{opEqual, a[i], i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, lcs(ma, mb, pre)...)
	for i := 0; i < suf; i++ {
		ia, ib := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, op{opEqual, a[ia], ia, ib})
	}
	return ops
}

func lcs(a, b []string, off int) []op {
	n, m := len(a), len(b)
	var ops []op
	if n*m > MaxCells || n == 0 || m == 0 {
		for i, s := range a {
			ops = append(ops, op{opDel, s, off + i, off})
		}
		for j, s := range b {
			ops = append(ops, op{opAdd, s, off + n, off + j})
		}
		return ops
	}
	// dp[i][j] = LCS length of a[i:] and b[j:]
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, op{opEqual, a[i], off + i, off + j})
			i++
			j++
		case dp[i+1][j] >= dp[i][j+1]:
			ops = append(ops, op{opDel, a[i], off + i, off + j})
			i++
		default:
			ops = append(ops, op{opAdd, b[j], off + i, off + j})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, op{opDel, a[i], off + i, off + j})
	}
	for ; j < m; j++ {
		ops = append(ops, op{opAdd, b[j], off + i, off + j})
	}
	return ops
}

// hunks returns [start, end) ranges of ops to print, merging changes whose
// context overlaps.
func hunks(ops []op, context int) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == opEqual {
			continue
		}
		start := max(0, i-context)
		end := i
		for end < len(ops) {
			if ops[end].kind != opEqual {
				end++
				continue
			}
			// a run of equal lines: stop if it is longer than 2*context
			k := end
			for k < len(ops) && ops[k].kind == opEqual {
				k++
			}
			if k == len(ops) || k-end > 2*context {
				end = min(len(ops), end+context)
				break
			}
			end = k
		}
		if n := len(out); n > 0 && out[n-1][1] >= start {
			out[n-1][1] = end
		} else {
			out = append(out, [2]int{start, end})
		}
		i = end - 1
	}
	return out
}

func writeHunk(sb *strings.Builder, ops []op) {
	aStart, bStart := ops[0].a, ops[0].b
	var aLen, bLen int
	for _, o := range ops {
		if o.kind != opAdd {
			aLen++
		}
		if o.kind != opDel {
			bLen++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", rangeOf(aStart, aLen), rangeOf(bStart, bLen))
	for _, o := range ops {
		sb.WriteByte(byte(o.kind))
		sb.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func rangeOf(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// Changed returns the added and removed lines (without their newline), in
// order, for summaries.
func Changed(a, b string) (added, removed []string) {
	for _, o := range diff(Lines(a), Lines(b)) {
		switch o.kind {
		case opAdd:
			added = append(added, strings.TrimSuffix(o.text, "\n"))
		case opDel:
			removed = append(removed, strings.TrimSuffix(o.text, "\n"))
		}
	}
	return added, removed
}
