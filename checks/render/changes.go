package render

import (
	"path"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/textdiff"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// changes builds one Change per planned template from the rendered diffs of
// its variable sets, as data: the diff of the first variable set whose
// output changed (Added and Removed count its lines), and per set how
// many lines it adds and removes (never a sum over sets).
func changes(templates []plan.Template, jobs []*job) []checks.Change {
	byPath := map[string][]*job{}
	for _, j := range jobs {
		byPath[j.tmpl.Path] = append(byPath[j.tmpl.Path], j)
	}
	var out []checks.Change
	for _, t := range templates {
		js := byPath[t.Path]
		c := checks.Change{Path: t.Path, Status: string(t.Status), Sets: len(js)}
		switch t.Status {
		case plan.Renamed:
			c.OldPath = t.OldPath
		case plan.Included:
			c.Via = t.Via
		}
		for _, j := range js {
			if j.head.err != nil && t.AtHead() {
				c.HeadFails++
			}
			if j.base.err != nil || j.head.err != nil {
				continue
			}
			diff, st := textdiff.Unified(
				"a/"+path.Join(j.group.Root, t.OldRel)+" ("+j.set.Name+")",
				"b/"+path.Join(j.group.Root, t.Rel)+" ("+j.set.Name+")",
				j.base.output, j.head.output, 3)
			if diff == "" {
				c.SameSets++
				continue
			}
			c.AddedPerSet = append(c.AddedPerSet, st.Added)
			c.RemovedPerSet = append(c.RemovedPerSet, st.Removed)
			if c.Diff == "" {
				c.Diff, c.Added, c.Removed = diff, st.Added, st.Removed
				added, removed := textdiff.Changed(j.base.output, j.head.output)
				c.FirstAdded, c.FirstRemoved = firstNonBlank(added), firstNonBlank(removed)
			}
		}
		out = append(out, c)
	}
	return out
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count
