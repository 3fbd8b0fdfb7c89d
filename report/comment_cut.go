package report

import (
	"fmt"
	"slices"
	"strings"
)

// The size limit cuts the comment in three steps, each only when the one
// before is not enough:
//
//  1. parts: the largest code blocks (rendered diffs, finding details,
//     check details). The largest block is shortened to its first lines
//     when that is enough; otherwise the largest blocks go, one by one.
//  2. lists: the longest list (the failures listed first, findings of a
//     check, rows of a table, changes, templates of the file tree) loses
//     its second half.
//  3. prose: check summaries and figures go.
//
// Every cut is named in the Notes section and where the part was. The
// cuts change the view, never the rendered text, so fences and tables
// stay whole.

// cutPart is a code block that the limit may shorten or drop.
type cutPart struct {
	size    int
	shorten func(budget int) bool
	drop    func()
}

// minKeep is the smallest shortened block, in bytes: below it, a block goes.
const minKeep = 1024

// cutParts shortens or drops code blocks to save at least over bytes. It
// reports false when no block is left.
func (v *view) cutParts(over int) bool {
	parts := v.parts()
	if len(parts) == 0 {
		return false
	}
	// The sort is stable, so among equal sizes the first in the comment
	// goes first.
	slices.SortStableFunc(parts, func(a, b cutPart) int { return b.size - a.size })
	const slack = 256 // for the notes that the cut adds
	if big := parts[0]; big.size-over-slack >= minKeep && big.shorten(big.size-over-slack) {
		return true
	}
	saved := 0
	for _, p := range parts {
		if saved >= over+slack {
			break
		}
		p.drop()
		saved += p.size
	}
	return true
}

// parts lists the code blocks that are still in the view.
func (v *view) parts() []cutPart {
	var out []cutPart
	for _, c := range v.Changes {
		if c.Diff != nil {
			out = append(out, v.part(&c.Diff, &c.Cut, code(c.path), cutShortDiff, cutDiff,
				"The diff above shows", "The rendered diff (%s bytes) is cut to fit the size limit."))
		}
	}
	for _, cv := range v.Checks {
		for _, f := range cv.Findings {
			if f.Details == nil {
				continue
			}
			name := "a finding of the " + prose(cv.name) + " check"
			if f.loc != "" {
				name = code(f.loc)
			}
			out = append(out, v.part(&f.Details, &f.Cut, name, cutShortFinding, cutFinding,
				"The details above show", "The details (%s bytes) are cut to fit the size limit."))
		}
		if cv.Details != nil {
			out = append(out, v.part(&cv.Details, &cv.Cut, prose(cv.name), cutShortCheck, cutCheck,
				"The details above show", "The details of the check (%s bytes) are cut to fit the size limit."))
		}
	}
	return out
}

// part is the block *d that the limit may shorten (noting short under
// name, and "<shows> the first N of M lines" in *cut) or drop (noting
// dropped, and dropNote with its size in *cut).
func (v *view) part(d **details, cut *string, name string, short, dropped int, shows, dropNote string) cutPart {
	return cutPart{
		size: len((*d).Block.Body),
		shorten: func(budget int) bool {
			shown, total, ok := shorten(*d, budget)
			if ok {
				v.cuts.add(short, name)
				*cut = fmt.Sprintf("%s the first %s of %s lines, to fit the size limit.", shows, thousands(shown), thousands(total))
			}
			return ok
		},
		drop: func() {
			v.cuts.add(dropped, name)
			*cut = fmt.Sprintf(dropNote, thousands(len((*d).Block.Body)))
			*d = nil
		},
	}
}

// shorten keeps the first lines of a block that fit in budget bytes. It
// returns the lines shown and the lines there were, and false when not
// even one line fits.
func shorten(d *details, budget int) (shown, total int, ok bool) {
	if d.lines == 0 {
		d.lines = strings.Count(d.Block.Body, "\n") + 1
	}
	body := d.Block.Body
	if len(body) <= budget {
		return 0, 0, false
	}
	cut := strings.LastIndexByte(body[:budget+1], '\n')
	if cut <= 0 {
		return 0, 0, false
	}
	body = body[:cut]
	d.Block = newBlock(d.Block.Lang, body)
	return strings.Count(body, "\n") + 1, d.lines, true
}

// cutLists halves the longest list. It reports false when every list is
// empty. It is about 90 lines: it measures each kind of list (a check's
// findings, a table's rows, the causes listed first, the changes, the
// file tree), picks the longest and cuts it; the measure and the cut of
// each kind sit side by side on purpose.
func (v *view) cutLists() bool {
	type cutList struct {
		size int
		cut  func()
	}
	var ls []cutList
	for _, cv := range v.Checks {
		cv := cv
		if n := len(cv.Findings); n > 0 {
			size := 0
			for _, f := range cv.Findings {
				size += len(f.Text) + len(f.Cut)
				if f.Details != nil {
					size += len(f.Details.Block.Body)
				}
			}
			ls = append(ls, cutList{size, func() {
				cv.Findings = cv.Findings[:n/2]
				cut := cv.total - n/2
				cv.FindingsCut = fmt.Sprintf("%s are cut to fit the size limit.", plural(cut, "more finding", "more findings"))
				v.cuts.list(cv.name+"\x00findings", fmt.Sprintf("Cut: %s of %s of the %s check.", thousands(cut), plural(cv.total, "finding", "findings"), prose(cv.name)))
			}})
		}
		for _, t := range cv.Tables {
			t := t
			if n := len(t.Rows); n > 0 {
				size := 0
				for _, r := range t.Rows {
					size += len(r) + 1
				}
				ls = append(ls, cutList{size, func() {
					t.Rows = t.Rows[:n/2]
					cut := t.total - n/2
					t.Cut = fmt.Sprintf("%s are cut to fit the size limit.", plural(cut, "more row", "more rows"))
					v.cuts.list(cv.name+"\x00table\x00"+t.Title, fmt.Sprintf("Cut: %s of %s of the table %s", thousands(cut), plural(t.total, "row", "rows"), t.Title))
				}})
			}
		}
	}
	if n := len(v.Failures); n > 0 {
		size := 0
		for _, f := range v.Failures {
			size += len(f)
		}
		ls = append(ls, cutList{size, func() {
			items, more := leadFailures(v.report)
			total := len(items) + more
			v.Failures = v.Failures[:n/2]
			v.FailuresMore = fmt.Sprintf("%s below, in the details of the checks.", capital(plural(total-n/2, "more cause", "more causes")))
			v.cuts.list("lead", fmt.Sprintf("Cut: %s of the %s listed first.", thousands(total-n/2), plural(total, "cause", "causes")))
		}})
	}
	if n := len(v.Changes); n > 0 {
		size := 0
		for _, c := range v.Changes {
			size += len(c.Title) + len(c.Effect) + len(c.Before) + len(c.Cut)
			if c.Diff != nil {
				size += len(c.Diff.Block.Body)
			}
		}
		ls = append(ls, cutList{size, func() {
			total := len(changeViews(v.report))
			v.Changes = v.Changes[:n/2]
			cut := total - n/2
			v.ChangesCut = fmt.Sprintf("%s are cut to fit the size limit.", plural(cut, "more change", "more changes"))
			v.cuts.list("changes", fmt.Sprintf("Cut: %s of %s.", thousands(cut), plural(total, "change", "changes")))
		}})
	}
	if v.Tree != nil && v.trees != 0 {
		n := v.trees
		if n < 0 {
			n = len(v.report.Templates)
		}
		ls = append(ls, cutList{len(v.Tree.Body), func() {
			v.trees = n / 2
			v.setTree()
			total := len(v.report.Templates)
			v.cuts.list("tree", fmt.Sprintf("Cut: %s of %s in the file tree.", thousands(total-n/2), plural(total, "template", "templates")))
		}})
	}
	if len(ls) == 0 {
		return false
	}
	slices.SortStableFunc(ls, func(a, b cutList) int { return b.size - a.size })
	ls[0].cut()
	return true
}

// cutProse drops the summaries and figures of the checks, the last cut
// before giving up. It reports false when there is nothing left to drop.
func (v *view) cutProse() bool {
	done := false
	for _, cv := range v.Checks {
		if cv.Summary != "" || len(cv.Figures) > 0 {
			cv.Summary, cv.Figures = "", nil
			done = true
		}
	}
	if done {
		v.cuts.list("prose", "Cut: the summaries and figures of the checks.")
	}
	return done
}
