package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/textdiff"
	"github.com/formula-code/template-verify/plan"
)

// maxQuote is the longest rendered line quoted in an Effect or Before line.
const maxQuote = 80

// changes builds one Change per planned template from the rendered diffs of
// its variable sets. The diff shown is that of the first variable set whose
// output changed.
func changes(templates []plan.Template, jobs []*job) []checks.Change {
	byPath := map[string][]*job{}
	for _, j := range jobs {
		byPath[j.tmpl.Path] = append(byPath[j.tmpl.Path], j)
	}
	var out []checks.Change
	for _, t := range templates {
		js := byPath[t.Path]
		c := checks.Change{Path: t.Path, Status: string(t.Status)}
		changedSets := 0
		var firstAdded, firstRemoved string
		for _, j := range js {
			if j.base.err != nil || j.head.err != nil {
				continue
			}
			d, st := textdiff.Unified(
				"a/"+path.Join(j.group.Root, t.OldRel)+" ("+j.set.Name+")",
				"b/"+path.Join(j.group.Root, t.Rel)+" ("+j.set.Name+")",
				j.base.output, j.head.output, 3)
			if d == "" {
				continue
			}
			changedSets++
			c.Added += st.Added
			c.Removed += st.Removed
			if c.Diff == "" {
				c.Diff = d
				added, removed := textdiff.Changed(j.base.output, j.head.output)
				firstAdded, firstRemoved = firstNonBlank(added), firstNonBlank(removed)
			}
		}
		c.Headline, c.Effect, c.Before = describe(t, len(js), changedSets, c, firstAdded, firstRemoved)
		out = append(out, c)
	}
	return out
}

func describe(t plan.Template, sets, changedSets int, c checks.Change, added, removed string) (headline, effect, before string) {
	switch t.Status {
	case plan.Added:
		return "new template", fmt.Sprintf("The template renders for %d variable sets.", sets), "The template did not exist."
	case plan.Deleted:
		return "template deleted", "Tasks no longer get this file.", fmt.Sprintf("The template rendered for %d variable sets.", sets)
	}
	what := "changed"
	switch t.Status {
	case plan.Renamed:
		what = "renamed from " + t.OldPath
	case plan.Included:
		what = "an included file changed (" + strings.Join(t.Via, ", ") + ")"
	}
	if changedSets == 0 {
		return what + ", rendered output unchanged",
			fmt.Sprintf("The rendered output is the same for all %d variable sets.", sets),
			"The same output."
	}
	headline = fmt.Sprintf("%s, output changes in %d of %s", what, changedSets, plural(sets, "variable set"))
	effect = fmt.Sprintf("The rendered output gets %s and loses %d.", plural(c.Added, "new line"), c.Removed)
	if added != "" {
		effect += " First new line: " + quote(added) + "."
	}
	before = "The base has no lines in place of the new ones."
	if removed != "" {
		before = "First removed line: " + quote(removed) + "."
	}
	return headline, effect, before
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
