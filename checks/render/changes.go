package render

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/textdiff"
	"github.com/formula-code/template-verify/plan"
)

// maxQuote is the longest rendered line quoted in an Effect or Before line.
const maxQuote = 80

// changes builds one Change per planned template from the rendered diffs of
// its variable sets. The diff shown is that of the first variable set whose
// output changed, and Added and Removed count its lines; the Effect line
// gives the counts per variable set (the same in each, or the range),
// never a sum over sets.
func changes(templates []plan.Template, jobs []*job) []checks.Change {
	byPath := map[string][]*job{}
	for _, j := range jobs {
		byPath[j.tmpl.Path] = append(byPath[j.tmpl.Path], j)
	}
	var out []checks.Change
	for _, t := range templates {
		js := byPath[t.Path]
		c := checks.Change{Path: t.Path, Status: string(t.Status)}
		var d setDiffs
		for _, j := range js {
			if j.head.err != nil && t.AtHead() {
				d.headFails++
			}
			if j.base.err != nil || j.head.err != nil {
				continue
			}
			diff, st := textdiff.Unified(
				"a/"+path.Join(j.group.Root, t.OldRel)+" ("+j.set.Name+")",
				"b/"+path.Join(j.group.Root, t.Rel)+" ("+j.set.Name+")",
				j.base.output, j.head.output, 3)
			if diff == "" {
				d.same++
				continue
			}
			d.added = append(d.added, st.Added)
			d.removed = append(d.removed, st.Removed)
			if c.Diff == "" {
				c.Diff, c.Added, c.Removed = diff, st.Added, st.Removed
				added, removed := textdiff.Changed(j.base.output, j.head.output)
				d.firstAdded, d.firstRemoved = firstNonBlank(added), firstNonBlank(removed)
			}
		}
		c.Headline, c.Effect, c.Before = describe(t, len(js), d)
		out = append(out, c)
	}
	return out
}

// setDiffs is what the variable sets of one template did.
type setDiffs struct {
	headFails int   // sets whose head render fails
	same      int   // sets that render to the same bytes at base and head
	added     []int // per changed set
	removed   []int
	// firstAdded and firstRemoved are lines of the first changed set.
	firstAdded, firstRemoved string
}

func describe(t plan.Template, sets int, d setDiffs) (headline, effect, before string) {
	fails := ""
	if d.headFails > 0 {
		fails = fmt.Sprintf("does not render at head in %d of %s", d.headFails, plural(sets, "variable set"))
	}
	switch t.Status {
	case plan.Added:
		if fails != "" {
			return "new template, " + fails, "See the render findings.", "The template did not exist."
		}
		return "new template", fmt.Sprintf("The template renders for %s.", plural(sets, "variable set")), "The template did not exist."
	case plan.Deleted:
		return "template deleted", "Tasks no longer get this file.", fmt.Sprintf("The template rendered for %s.", plural(sets, "variable set"))
	}
	what := "changed"
	switch t.Status {
	case plan.Renamed:
		what = "renamed from " + t.OldPath
	case plan.Included:
		what = "an included file changed (" + strings.Join(t.Via, ", ") + ")"
	}
	changed := len(d.added)
	switch {
	case changed == 0 && fails != "":
		return what + ", " + fails, "The head's render fails, so its output cannot be compared; see the render findings.", "The base's output."
	case changed == 0 && d.same == sets:
		return what + ", rendered output unchanged",
			fmt.Sprintf("The rendered output is the same for all %s.", plural(sets, "variable set")),
			"The same output."
	case changed == 0:
		return what + ", output not compared", "The base does not render, so the outputs cannot be compared; see the render findings.", "The base fails."
	}
	headline = fmt.Sprintf("%s, output changes in %d of %s", what, changed, plural(sets, "variable set"))
	if fails != "" {
		headline += "; " + fails
	}
	effect = fmt.Sprintf("The rendered output gets %s and loses %s.", perSet(d.added, "new line"), perSet(d.removed, "line"))
	if d.firstAdded != "" {
		effect += " First new line: " + quote(d.firstAdded) + "."
	}
	before = "The base has no lines in place of the new ones."
	if d.firstRemoved != "" {
		before = "First removed line: " + quote(d.firstRemoved) + "."
	}
	return headline, effect, before
}

// perSet says how many lines each changed variable set gets: "2 new lines"
// for one set, "1 new line in each of 3 variable sets", or "1 to 4 new
// lines (per variable set)".
func perSet(counts []int, noun string) string {
	lo, hi := slices.Min(counts), slices.Max(counts)
	switch {
	case len(counts) == 1:
		return plural(lo, noun)
	case lo == hi:
		return fmt.Sprintf("%s in each of %d variable sets", plural(lo, noun), len(counts))
	}
	return fmt.Sprintf("%d to %s per variable set", lo, plural(hi, noun))
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// quote puts a rendered line in inline code, shortened, with a backtick
// fence longer than any backtick run inside.
func quote(s string) string {
	if r := []rune(s); len(r) > maxQuote {
		s = string(r[:maxQuote-1]) + "…"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
