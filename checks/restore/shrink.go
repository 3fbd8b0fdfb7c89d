package restore

// Shrink reduces a failing edit list to a smaller one that still fails,
// by delta debugging: it drops chunks of edits, halving the chunk size
// when no chunk can go, until no single edit can be dropped or runs reach
// the limit. fails runs the step on a candidate list.
func Shrink(edits []Edit, fails func([]Edit) bool, limit int) []Edit {
	runs := 0
	n := 2
	for len(edits) >= 2 && runs < limit {
		chunk := (len(edits) + n - 1) / n
		reduced := false
		for start := 0; start < len(edits) && runs < limit; start += chunk {
			end := min(start+chunk, len(edits))
			candidate := append(append([]Edit{}, edits[:start]...), edits[end:]...)
			runs++
			if fails(candidate) {
				edits = candidate
				n = max(n-1, 2)
				reduced = true
				break
			}
		}
		if reduced {
			continue
		}
		if n >= len(edits) {
			break
		}
		n = min(2*n, len(edits))
	}
	if len(edits) == 1 && runs < limit && fails(nil) {
		return nil
	}
	return edits
}
