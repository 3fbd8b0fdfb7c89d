package synccheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/words"
)

// compare returns, per copy, the items it lacks that another copy has
// (and that copy does not list as only_here). Drop items are removed first.
func compare(g config.SyncGroup, states []copyState) [][]lack {
	sets := make([]map[string]int, len(states))
	for i, st := range states {
		sets[i] = map[string]int{}
		for _, it := range st.items {
			if slices.Contains(g.Copies[i].Drop, it.Value) {
				continue
			}
			if _, seen := sets[i][it.Value]; !seen {
				sets[i][it.Value] = it.Line
			}
		}
	}
	out := make([][]lack, len(states))
	for i := range states {
		seen := map[string]bool{}
		for j := range states {
			if j == i {
				continue
			}
			for _, it := range states[j].items {
				line, has := sets[j][it.Value]
				if !has || seen[it.Value] || slices.Contains(g.Copies[j].OnlyHere, it.Value) {
					continue
				}
				if _, ok := sets[i][it.Value]; !ok {
					seen[it.Value] = true
					out[i] = append(out[i], lack{value: it.Value, from: j, line: line})
				}
			}
		}
	}
	return out
}

// judge turns a group's base and head into findings; ok is false when the
// group could not be compared at the head.
func judge(g config.SyncGroup, base, head side, strict bool) ([]checks.Finding, bool) {
	var fs []checks.Finding
	if !head.usable() {
		for i, st := range head.states {
			if st.usable() {
				continue
			}
			title := "A copy is missing"
			if st.missing == "" {
				title = "A copy cannot be read"
			}
			f := checks.Finding{Path: st.path, Level: checks.LevelFailure, Title: title,
				Message: fmt.Sprintf("Sync group %s: %s, so the copies cannot be compared.", g.Name, st.problem())}
			if !base.states[i].usable() {
				f.Message += " It fails before this change too."
				if !strict {
					f.Level = checks.LevelWarning
				}
			} else {
				f.Message += " At the base it was there."
			}
			fs = append(fs, f)
		}
		// When the change broke a copy, the failure is the verdict; when
		// a copy is missing at both, the group is not compared.
		return fs, base.usable()
	}
	if !head.differ() {
		return nil, true
	}
	before := base.usable() && base.differ()
	for i, ls := range head.lacks {
		if len(ls) == 0 {
			continue
		}
		f := checks.Finding{Path: head.states[i].path, Line: firstLine(head, i), Level: checks.LevelFailure, Title: "Copies differ",
			Message: fmt.Sprintf("Sync group %s: %s lacks %s that %s.", g.Name, where(head.states[i]), plural(len(ls), "item"), others(head, ls)),
			Details: details(head, i, ls)}
		switch {
		case before:
			f.Message += " The copies already differed at the base: it fails before this change."
			if !strict {
				f.Level = checks.LevelWarning
			}
		case base.usable():
			f.Message += " They were equal at the base."
		default:
			f.Message += " A copy was missing at the base, so the difference is new."
		}
		fs = append(fs, f)
	}
	return fs, true
}

// firstLine is the line of the copy's first item, to anchor a finding.
func firstLine(s side, i int) int {
	for _, it := range s.states[i].items {
		if it.Line > 0 {
			return it.Line
		}
	}
	return 0
}

func where(st copyState) string {
	if st.rendered {
		return st.path + " (rendered)"
	}
	return st.path
}

// others names the copies that have the lacked items.
func others(s side, ls []lack) string {
	var names []string
	for _, l := range ls {
		n := s.states[l.from].path
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		return names[0] + " has"
	}
	return strings.Join(names, " and ") + " have"
}

// maxListed bounds the items listed per copy in a finding.
const maxListed = 50

// details is the symmetric difference for one copy, one item a line,
// with the file and line where the other copy has it.
func details(s side, i int, ls []lack) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lacks:\n", where(s.states[i]))
	for k, l := range ls {
		if k == maxListed {
			fmt.Fprintf(&b, "  and %d more\n", len(ls)-k)
			break
		}
		at := s.states[l.from].path
		if l.line > 0 {
			at = fmt.Sprintf("%s:%d", at, l.line)
		}
		fmt.Fprintf(&b, "  %s    (%s)\n", l.value, at)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func copyList(s side) string {
	var ps []string
	for _, st := range s.states {
		ps = append(ps, st.path)
	}
	return strings.Join(ps, ", ")
}

func verdict(s side) string {
	switch {
	case !s.usable():
		for _, st := range s.states {
			if st.missing != "" {
				return "a copy is missing"
			}
		}
		return "a copy cannot be read"
	case s.differ():
		return "differ"
	}
	return "equal"
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count
