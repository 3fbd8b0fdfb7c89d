package verify

import (
	"context"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// ScopeTitle is the title of the finding that shows how the head's
// configuration changes what is verified.
const ScopeTitle = "The PR changes what is verified"

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

// varsChanges lists how the head's group changes the variables its
// templates are rendered with: the group's vars and matrix and those of
// each template entry (an entry the base does not have starts from none),
// by key. A matrix value the head drops is listed by widenMatrices, which
// puts it back.
func varsChanges(bg, hg *config.Group) []string {
	where := fmt.Sprintf("group `%s`", hg.Name)
	out := keyChanges(where+": vars", bg.Vars, hg.Vars)
	out = append(out, matrixChanges(where+": matrix", bg.Matrix, hg.Matrix)...)
	for _, ht := range hg.Templates {
		var bt config.Template
		if i := slices.IndexFunc(bg.Templates, func(t config.Template) bool { return t.Path == ht.Path }); i >= 0 {
			bt = bg.Templates[i]
		}
		w := fmt.Sprintf("%s, template `%s`", where, ht.Path)
		out = append(out, keyChanges(w+": vars", bt.Vars, ht.Vars)...)
		out = append(out, matrixChanges(w+": matrix", bt.Matrix, ht.Matrix)...)
	}
	return out
}

// jinjaChanges lists the Jinja options the head's group changes.
func jinjaChanges(bg, hg *config.Group) []string {
	where := fmt.Sprintf("group `%s`: jinja ", hg.Name)
	b, h := bg.Jinja, hg.Jinja
	var out []string
	for _, o := range []struct {
		name       string
		base, head bool
	}{
		{"strict_undefined", b.StrictUndefined, h.StrictUndefined},
		{"keep_trailing_newline", b.KeepTrailingNewline, h.KeepTrailingNewline},
		{"trim_blocks", b.TrimBlocks, h.TrimBlocks},
		{"lstrip_blocks", b.LstripBlocks, h.LstripBlocks},
		{"autoescape", b.Autoescape, h.Autoescape},
	} {
		out = append(out, changed(where+o.name, fmt.Sprint(o.base), fmt.Sprint(o.head))...)
	}
	return out
}

// keyChanges lists the keys the head adds to, changes in or drops from a
// map of variables.
func keyChanges(where string, base, head map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(head)) {
		bv, ok := base[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s adds `%s`", where, k))
		case !reflect.DeepEqual(bv, head[k]):
			out = append(out, fmt.Sprintf("%s changes `%s`", where, k))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(base)) {
		if _, ok := head[k]; !ok {
			out = append(out, fmt.Sprintf("%s drops `%s`", where, k))
		}
	}
	return out
}

// matrixChanges lists the matrix keys the head adds and the values it adds
// to a key of the base.
func matrixChanges(where string, base, head map[string][]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(head)) {
		bv, ok := base[k]
		if !ok {
			out = append(out, fmt.Sprintf("%s adds `%s`", where, k))
			continue
		}
		for _, v := range head[k] {
			if !slices.ContainsFunc(bv, func(b any) bool { return reflect.DeepEqual(b, v) }) {
				out = append(out, fmt.Sprintf("%s: `%s` adds `%v`", where, k, v))
			}
		}
	}
	return out
}

// scopeChanges lists how the head's groups differ from the base's in what
// they select: groups added or removed, roots moved, excludes and template
// globs added or removed, and the variables their templates are rendered
// with (varsChanges).
func scopeChanges(base, head *config.Config) []string {
	var out []string
	for _, bg := range base.Groups {
		hg, ok := head.Group(bg.Name)
		if !ok {
			out = append(out, fmt.Sprintf("group `%s` (root `%s`) is removed", bg.Name, bg.Root))
			continue
		}
		if strings.TrimSuffix(bg.Root, "/") != strings.TrimSuffix(hg.Root, "/") {
			out = append(out, fmt.Sprintf("group `%s`: root `%s` moves to `%s`", bg.Name, bg.Root, hg.Root))
		}
		out = append(out, listChange(bg.Name, "exclude", bg.Exclude, hg.Exclude)...)
		out = append(out, listChange(bg.Name, "copy", bg.Copy, hg.Copy)...)
		out = append(out, listChange(bg.Name, "templates", globs(&bg), globs(hg))...)
		out = append(out, varsChanges(&bg, hg)...)
		out = append(out, jinjaChanges(&bg, hg)...)
	}
	for _, hg := range head.Groups {
		if _, ok := base.Group(hg.Name); !ok {
			out = append(out, fmt.Sprintf("group `%s` (root `%s`) is added", hg.Name, hg.Root))
		}
	}
	if b, h := base.Restore, head.Restore; b != nil && h != nil {
		out = append(out, changed("restore: template", b.Template, h.Template)...)
		out = append(out, changed("restore: command", b.Command, h.Command)...)
		out = append(out, changed("restore: section", sectionOf(b), sectionOf(h))...)
		out = append(out, keyChanges("restore: vars", b.Vars, h.Vars)...)
	}
	if b, h := base.Pytest, head.Pytest; b != nil && h != nil && b.Runner != nil && h.Runner != nil {
		out = append(out, changed("pytest runner: template", b.Runner.Template, h.Runner.Template)...)
	}
	return out
}

func changed(what, base, head string) []string {
	if base == head {
		return nil
	}
	return []string{fmt.Sprintf("%s `%s` changes to `%s`", what, base, head)}
}

func sectionOf(r *config.Restore) string {
	if r.Section == nil {
		return ""
	}
	return r.Section.Start + " .. " + r.Section.End
}

func listChange(group, key string, base, head []string) []string {
	var out []string
	for _, v := range head {
		if !slices.Contains(base, v) {
			out = append(out, fmt.Sprintf("group `%s`: %s adds `%s`", group, key, v))
		}
	}
	for _, v := range base {
		if !slices.Contains(head, v) {
			out = append(out, fmt.Sprintf("group `%s`: %s drops `%s`", group, key, v))
		}
	}
	return out
}

// scopeFinding is the warning that shows a change of what is verified, and
// the note that leads the report's notes; nil and "" when nothing changes.
func scopeFinding(changes []string, added []plan.Template, source string) (*checks.Finding, string) {
	if len(changes) == 0 && len(added) == 0 {
		return nil, ""
	}
	lines := slices.Clone(changes)
	for _, t := range added {
		lines = append(lines, fmt.Sprintf("`%s` is selected by the base's configuration only: it is verified with the base's group `%s`", t.Path, strings.TrimSuffix(t.Group, baseGroupSuffix)))
	}
	msg := fmt.Sprintf("The head's %s changes what is verified. Every template that the base's or the head's configuration selects is verified, with every matrix value of either, and a template whose variables change is rendered with the base's variable sets as well: ", source) +
		strings.Join(lines, "; ") + "."
	f := &checks.Finding{
		Path:    source,
		Level:   checks.LevelWarning,
		Title:   ScopeTitle,
		Message: msg,
		Details: "- " + strings.Join(lines, "\n- ") + "\n",
	}
	if source == "" || source == config.Default().Source {
		f.Path = ""
	}
	return f, ScopeTitle + ": " + strings.Join(lines, "; ") + "."
}

// attachScope puts the finding on the render check's result, or on the
// first result that ran when render did not.
func attachScope(results []checks.Result, f *checks.Finding) {
	if f == nil || len(results) == 0 {
		return
	}
	at := -1
	for i, r := range results {
		if r.Check == "render" && r.Conclusion != checks.Skipped {
			at = i
			break
		}
		if at < 0 && r.Conclusion != checks.Skipped {
			at = i
		}
	}
	if at < 0 {
		at = 0
	}
	results[at].Findings = append([]checks.Finding{*f}, results[at].Findings...)
}
