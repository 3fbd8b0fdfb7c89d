package render

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// baseSetSuffix marks a variable set that the base's configuration passes
// and the head's does not.
const baseSetSuffix = " (base config)"

// baseVarSets returns the variable sets that the base's configuration
// renders the template with and the head's (widened) configuration does
// not, each named with baseSetSuffix, and what the PR changed in the
// variables ("the PR adds `k` to the config"). The base's configuration is
// the model of what production passes: a head that adds a variable (to a
// group's or a template entry's vars or matrix) could otherwise hide an
// undefined variable that production raises. A template of a "@base" group
// is rendered with the base's group already; a template the base's
// configuration does not select has no base sets.
func baseVarSets(in *checks.Input, t plan.Template, g *config.Group, head []config.VarSet, limit int) ([]config.VarSet, string) {
	if in.BaseConfig == nil || !t.AtHead() || strings.HasSuffix(g.Name, "@base") {
		return nil, ""
	}
	var entries []config.Template
	bg, rel, ok := in.BaseConfig.GroupOf(t.Path)
	if ok {
		entries = bg.TemplateFor(rel)
	}
	if len(entries) == 0 && t.OldPath != "" {
		if bg, rel, ok = in.BaseConfig.GroupOf(t.OldPath); ok {
			entries = bg.TemplateFor(rel)
		}
	}
	if len(entries) == 0 {
		return nil, ""
	}
	sets, _ := bg.VarSetsUpTo(entries[0], limit)
	var out []config.VarSet
	var added, changed, removed []string
	for _, bs := range sets {
		if slices.ContainsFunc(head, func(h config.VarSet) bool { return reflect.DeepEqual(h.Vars, bs.Vars) }) {
			continue
		}
		for _, h := range head {
			for _, k := range slices.Sorted(maps.Keys(h.Vars)) {
				if _, ok := bs.Vars[k]; !ok && !slices.Contains(added, k) {
					added = append(added, k)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(bs.Vars)) {
			inHead, same := false, false
			for _, h := range head {
				v, ok := h.Vars[k]
				inHead = inHead || ok
				same = same || ok && reflect.DeepEqual(v, bs.Vars[k])
			}
			switch {
			case !inHead && !slices.Contains(removed, k):
				removed = append(removed, k)
			case inHead && !same && !slices.Contains(changed, k):
				changed = append(changed, k)
			}
		}
		out = append(out, config.VarSet{Name: bs.Name + baseSetSuffix, Vars: bs.Vars})
	}
	if len(out) == 0 {
		return nil, ""
	}
	var what []string
	if len(added) > 0 {
		what = append(what, "adds "+keyList(added)+" to the config")
	}
	if len(changed) > 0 {
		what = append(what, "changes "+keyList(changed)+" in the config")
	}
	if len(removed) > 0 {
		what = append(what, "removes "+keyList(removed)+" from the config")
	}
	if len(what) == 0 {
		what = append(what, "changes the variable sets of the config")
	}
	return out, "the PR " + strings.Join(what, " and ")
}

func keyList(keys []string) string {
	slices.Sort(keys)
	spans := make([]string, len(keys))
	for i, k := range keys {
		spans[i] = words.Code(k)
	}
	return strings.Join(spans, ", ")
}

// baseVarsFinding rewrites a head render error of a base-config set: the
// template fails with what production passes.
func baseVarsFinding(f *checks.Finding, j *job) {
	if j.baseVars == "" {
		return
	}
	f.Title = "Render error with the base config's variables"
	f.Message += fmt.Sprintf(" The template fails with the variables the base config passes; %s. Production passes the base's variables.", j.baseVars)
}
