package verify

import (
	"fmt"
	"maps"
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
