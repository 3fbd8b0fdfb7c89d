package verify

import (
	"context"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// baseGroupSuffix names the copy of a base group that verifies a template
// the head's configuration no longer selects.
const baseGroupSuffix = "@base"

// widen adds to the plan the templates that the trusted configurations
// (the base's) select and the head's does not, so that a change to the
// head's configuration cannot take a changed template out of the
// verification. It returns the configuration the checks get: the head's,
// with a copy of each base group that verifies such a template, named
// "<group>@base". The head's own configuration is not changed.
func widen(ctx context.Context, p *plan.Plan, head *config.Config, trusted ...*config.Config) (*config.Config, []plan.Template, []string, error) {
	eff := *head
	eff.Groups = slices.Clone(head.Groups)
	for i := range eff.Groups {
		g := &eff.Groups[i]
		g.Matrix = maps.Clone(g.Matrix)
		g.Templates = slices.Clone(g.Templates)
		for j := range g.Templates {
			g.Templates[j].Matrix = maps.Clone(g.Templates[j].Matrix)
		}
	}
	var added []plan.Template
	var dropped []string
	for _, b := range trusted {
		if b == nil {
			continue
		}
		atHead := func(file string) bool {
			ok, err := p.Trees.Has(ctx, p.Head, file)
			return ok && err == nil
		}
		widenStrict(&eff, b)
		moved := append(widenMatrices(&eff, b), widenSuites(&eff, b, atHead)...)
		for _, d := range append(moved, widenRestore(&eff, b, head, atHead)...) {
			if !slices.Contains(dropped, d) {
				dropped = append(dropped, d)
			}
		}
		sel, err := p.SelectedBy(ctx, b)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("select the templates of the base's configuration: %w", err)
		}
		var extra []plan.Template
		for _, t := range sel {
			bg, ok := b.Group(t.Group)
			if !ok {
				continue
			}
			if hg, ok := eff.Group(t.Group); ok && sameSelection(hg, bg) {
				// The same group selects it at head, under a longer root
				// of another group: the head verifies it already.
				continue
			}
			name := bg.Name + baseGroupSuffix
			if _, ok := eff.Group(name); !ok {
				g := *bg
				g.Name = name
				eff.Groups = append(eff.Groups, g)
			}
			t.Group = name
			extra = append(extra, t)
		}
		added = append(added, p.Add(extra)...)
	}
	return &eff, added, dropped, nil
}

// widenMatrices adds to the matrices of eff's groups and template entries
// every value that the same group or entry of base has, so that a head
// that narrows a matrix still renders every variable set the base
// renders. It returns what the head dropped.
func widenMatrices(eff, base *config.Config) []string {
	var dropped []string
	for i := range eff.Groups {
		g := &eff.Groups[i]
		bg, ok := base.Group(g.Name)
		if !ok || strings.HasSuffix(g.Name, baseGroupSuffix) {
			continue
		}
		where := fmt.Sprintf("group `%s`", g.Name)
		g.Matrix, dropped = unionMatrix(g.Matrix, g.Vars, bg.Matrix, where, dropped)
		for j := range g.Templates {
			t := &g.Templates[j]
			for _, bt := range bg.Templates {
				if bt.Path == t.Path {
					vars := map[string]any{} // g.Vars is nil in a group without vars
					maps.Copy(vars, g.Vars)
					maps.Copy(vars, t.Vars)
					t.Matrix, dropped = unionMatrix(t.Matrix, vars, bt.Matrix, fmt.Sprintf("%s, template `%s`", where, t.Path), dropped)
				}
			}
		}
	}
	return dropped
}

// widenStrict keeps strict_undefined on in each group of eff whose group
// of the same name or the same root in base has it: a head that turns it
// off would render an undefined variable as nothing, where production
// raises. scopeChanges lists the change.
func widenStrict(eff, base *config.Config) {
	for i := range eff.Groups {
		g := &eff.Groups[i]
		for _, bg := range base.Groups {
			if bg.Jinja.StrictUndefined && (bg.Name == g.Name || strings.TrimSuffix(bg.Root, "/") == strings.TrimSuffix(g.Root, "/")) {
				g.Jinja.StrictUndefined = true
			}
		}
	}
}

// widenRestore keeps the restore check on the base's template while it is
// at head: a head that points restore.template at another file (a copy)
// would leave the real step unverified. It returns the note that says so.
func widenRestore(eff, base, head *config.Config, atHead func(string) bool) []string {
	if eff.Restore == nil || base.Restore == nil || head.Restore == nil || eff.Restore.Template != head.Restore.Template || head.Restore.Template == base.Restore.Template {
		return nil
	}
	bg, rel, err := base.ResolveTemplate(base.Restore.Template)
	if err != nil || !atHead(path.Join(bg.Root, rel)) {
		return nil
	}
	name := bg.Name
	if hg, ok := eff.Group(name); !ok || strings.TrimSuffix(hg.Root, "/") != strings.TrimSuffix(bg.Root, "/") {
		name = bg.Name + baseGroupSuffix
		if _, ok := eff.Group(name); !ok {
			g := *bg
			g.Name = name
			eff.Groups = append(eff.Groups, g)
		}
	}
	r := *eff.Restore
	r.Template = name + ":" + rel
	eff.Restore = &r
	return []string{fmt.Sprintf("restore: the check verifies the base's template `%s`, which is still at head, not `%s`", path.Join(bg.Root, rel), head.Restore.Template)}
}

// widenSuites adds to eff's pytest suites every suite of base that the
// head drops, and to a suite of the same name every trigger and file the
// head drops, so that a head cannot keep a suite from running. It returns
// what the head dropped. A file the head deletes is left out: the diff
// shows its removal. A head without a pytest block turns the check off,
// which Run reports as not run.
func widenSuites(eff, base *config.Config, atHead func(string) bool) []string {
	if eff.Pytest == nil || base.Pytest == nil {
		return nil
	}
	py := *eff.Pytest
	py.Suites = slices.Clone(py.Suites)
	eff.Pytest = &py
	var dropped []string
	for _, bs := range base.Pytest.Suites {
		i := slices.IndexFunc(py.Suites, func(s config.Suite) bool { return s.Name == bs.Name })
		if i < 0 {
			// A file the head does not have was never run by the base
			// either (the defaults' tests/docker in a repository without
			// one) or the diff shows its removal.
			if bs.Files = slices.DeleteFunc(slices.Clone(bs.Files), func(f string) bool { return !atHead(f) }); len(bs.Files) == 0 {
				continue
			}
			py.Suites = append(py.Suites, bs)
			dropped = append(dropped, fmt.Sprintf("pytest suite `%s` is dropped", bs.Name))
			continue
		}
		s := &py.Suites[i]
		s.Triggers, dropped = unionList(s.Triggers, bs.Triggers, fmt.Sprintf("pytest suite `%s`: triggers", bs.Name), dropped)
		s.Files, dropped = unionList(s.Files, slices.DeleteFunc(slices.Clone(bs.Files), func(f string) bool { return !atHead(f) }),
			fmt.Sprintf("pytest suite `%s`: files", bs.Name), dropped)
	}
	return dropped
}

func unionList(head, base []string, where string, dropped []string) ([]string, []string) {
	head = slices.Clone(head)
	for _, v := range base {
		if !slices.Contains(head, v) {
			head = append(head, v)
			dropped = append(dropped, fmt.Sprintf("%s drops `%s`", where, v))
		}
	}
	return head, dropped
}

// unionMatrix returns head's matrix with each value of base's added. A key
// the head sets as a plain variable starts from that value.
func unionMatrix(head map[string][]any, vars map[string]any, base map[string][]any, where string, dropped []string) (map[string][]any, []string) {
	for _, k := range slices.Sorted(maps.Keys(base)) {
		vals, inMatrix := head[k]
		if !inMatrix {
			if v, ok := vars[k]; ok {
				vals = []any{v}
			}
		}
		vals = slices.Clone(vals)
		for _, v := range base[k] {
			if !slices.ContainsFunc(vals, func(h any) bool { return reflect.DeepEqual(h, v) }) {
				vals = append(vals, v)
				dropped = append(dropped, fmt.Sprintf("%s: matrix `%s` drops `%v`", where, k, v))
			}
		}
		if head == nil {
			head = map[string][]any{}
		}
		head[k] = vals
	}
	return head, dropped
}

func sameSelection(a, b *config.Group) bool {
	return strings.TrimSuffix(a.Root, "/") == strings.TrimSuffix(b.Root, "/") &&
		slices.Equal(a.Exclude, b.Exclude) && slices.Equal(a.Copy, b.Copy) && slices.Equal(globs(a), globs(b))
}

func globs(g *config.Group) []string {
	var out []string
	for _, t := range g.Templates {
		out = append(out, t.Path)
	}
	return out
}
