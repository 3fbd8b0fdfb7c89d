package render

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
)

// setFinding is a finding of one template and one variable set, before
// the findings that every set has the same way are merged.
type setFinding struct {
	f        checks.Finding
	set      string
	template string // repository path of the template
}

// setsPerTemplate counts the variable sets rendered for each template.
func setsPerTemplate(jobs []*job) map[string]int {
	n := map[string]int{}
	for _, j := range jobs {
		n[j.tmpl.Path]++
	}
	return n
}

// mergeSets makes one finding of the findings that differ only in their
// variable set, in the order of their first set; the title names the sets
// ("in all 4 variable sets" or the list).
func mergeSets(in []setFinding, total map[string]int) []checks.Finding {
	type group struct {
		f    checks.Finding
		tmpl string
		sets []string
	}
	var order []*group
	byKey := map[string]*group{}
	for _, sf := range in {
		f := sf.f
		key := strings.Join([]string{sf.template, f.Path, fmt.Sprint(f.Line), string(f.Level), f.Title, f.Message}, "\x00")
		if g, ok := byKey[key]; ok {
			g.sets = append(g.sets, sf.set)
			continue
		}
		g := &group{f: f, tmpl: sf.template, sets: []string{sf.set}}
		byKey[key] = g
		order = append(order, g)
	}
	out := make([]checks.Finding, 0, len(order))
	for _, g := range order {
		where, list := setsText(g.sets, total[g.tmpl])
		if list != "" && !strings.HasSuffix(g.f.Message, ".") {
			g.f.Message += "."
		}
		switch {
		case g.f.Title == "":
			g.f.Message += " Variable sets: " + list + "."
		case list == "":
			g.f.Title += " (" + where + ")"
		default:
			g.f.Title += " (" + where + ")"
			g.f.Message += " Variable sets: " + list + "."
		}
		out = append(out, g.f)
	}
	return out
}

// setsText names the variable sets of a finding, for its title ("default",
// "in 3 of 4 variable sets", "in all 4 variable sets") and, when there are
// several, as a list for its message (the first few and how many more).
// The house style keeps a sentence short, so the list is not in the title.
func setsText(sets []string, total int) (where, list string) {
	if len(sets) == 1 {
		return sets[0], ""
	}
	list = strings.Join(sets, "; ")
	if len(sets) > maxSetNames {
		list = fmt.Sprintf("%s; and %d more", strings.Join(sets[:maxSetNames], "; "), len(sets)-maxSetNames)
	}
	if len(sets) == total {
		return fmt.Sprintf("in all %d variable sets", total), list
	}
	return fmt.Sprintf("in %d of %d variable sets", len(sets), total), list
}

// maxSetNames is how many variable sets a merged finding names.
const maxSetNames = 6
