package rendercode

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
)

// CatchAll is the glob of the last template entry of a derived group: a
// file under the root that no render call names gets every variable the
// environment's render calls pass (the first value of each).
const CatchAll = "**"

// PythonFiles is the exclude glob of a derived group whose render calls
// load no .py template.
const PythonFiles = "**/*.py"

// Groups turns what the helper found into template groups, one per loader
// root, in the order the environments were found, and says what it could
// not resolve. Where several environments have one root, the group takes
// the options of the environment of record (recordEnvs), not the first
// one found: a file that a pull request adds with an Environment of its
// own does not choose the options its templates are judged with.
func (f *Found) Groups() ([]config.Group, []string) {
	var groups []config.Group
	var notes []string
	files := map[string]bool{}
	for _, p := range f.Tree {
		files[p] = true
	}
	names := map[string]bool{}
	roots := map[string]string{} // root -> where
	record := f.recordEnvs()
	for i, env := range f.Envs {
		notes = append(notes, env.Unresolved...)
		notes = append(notes, env.Notes...)
		if len(env.Roots) == 0 {
			continue
		}
		var sites []Site
		for _, s := range f.Sites {
			if s.Env == i {
				sites = append(sites, s)
			}
		}
		for _, root := range env.Roots {
			if j := record[root]; j != i {
				notes = append(notes, f.otherEnvNote(i, j, root))
				continue
			}
			if w, ok := roots[root]; ok {
				notes = append(notes, fmt.Sprintf("%s: the loader root %s is also the root of the environment at %s; the first one is used", env.Where, root, w))
				continue
			}
			roots[root] = env.Where
			if !hasFileUnder(f.Tree, root) {
				notes = append(notes, fmt.Sprintf("%s: the loader root %s holds no file", env.Where, root))
			}
			g := config.Group{
				Name:  groupName(root, names),
				Root:  root,
				Where: env.Where,
				Jinja: config.Jinja{
					StrictUndefined:     env.Opts["strict_undefined"],
					KeepTrailingNewline: env.Opts["keep_trailing_newline"],
					TrimBlocks:          env.Opts["trim_blocks"],
					LstripBlocks:        env.Opts["lstrip_blocks"],
					Autoescape:          env.Opts["autoescape"],
				},
				Copy: copiesUnder(f.Copies, root, f.Tree),
			}
			if len(env.Roots) > 1 {
				g.Search = slices.Clone(env.Roots)
			}
			var missing []string
			g.Templates, missing = templates(sites, root, env.Roots, files)
			notes = append(notes, missing...)
			if !slices.ContainsFunc(sites, func(s Site) bool { return path.Ext(s.Template) == ".py" || path.Ext(s.Glob) == ".py" }) {
				// Python under a root that no render call loads is code
				// (a helper, a package file), not a template.
				g.Exclude = []string{PythonFiles}
			}
			groups = append(groups, g)
		}
	}
	for _, s := range f.Sites {
		notes = append(notes, s.Notes...)
	}
	notes = append(notes, f.Notes...)
	for _, e := range f.Errors {
		notes = append(notes, fmt.Sprintf("%s does not parse: %s", e.File, e.Error))
	}
	return groups, dedupe(notes)
}

// templates merges the render sites of one environment into template
// entries, one per loaded name or glob in the order first seen, and the
// catch-all entry last. missing says which sites load a template that is
// not under root.
func templates(sites []Site, root string, search []string, files map[string]bool) ([]config.Template, []string) {
	type entry struct {
		path string
		vars map[string][]any
		keys []string
		sets []config.VarSet
	}
	var entries []*entry
	byPath := map[string]*entry{}
	all := &entry{path: CatchAll, vars: map[string][]any{}}
	var missing []string
	for _, s := range sites {
		p := s.Template
		if p == "" {
			p = s.Glob
		}
		if p == "" {
			continue
		}
		if s.Template != "" && !files[path.Join(root, s.Template)] {
			if slices.ContainsFunc(search, func(r string) bool { return files[path.Join(r, s.Template)] }) {
				continue // another folder of the search path holds it
			}
			if len(search) > 1 && root != search[0] {
				continue // said once, for the first folder
			}
			where := root
			if len(search) > 1 {
				where = strings.Join(search, ", ")
			}
			missing = append(missing, fmt.Sprintf("%s loads %s, which is not in %s", s.Where, s.Template, where))
		}
		e, ok := byPath[p]
		if !ok {
			e = &entry{path: p, vars: map[string][]any{}}
			byPath[p] = e
			entries = append(entries, e)
		}
		for _, set := range s.Sets {
			e.sets = appendSet(e.sets, set)
		}
		for _, k := range sortedKeys(s.Vars) {
			for _, into := range []*entry{e, all} {
				if into == e && len(s.Sets) > 0 {
					continue // the entry takes the observed sets whole
				}
				if _, ok := into.vars[k]; !ok {
					into.keys = append(into.keys, k)
				}
				if into == all && len(into.vars[k]) > 0 {
					continue // the catch-all takes the first value only
				}
				into.vars[k] = appendNew(into.vars[k], s.Vars[k].Values...)
			}
		}
	}
	entries = append(entries, all)
	out := make([]config.Template, 0, len(entries))
	for _, e := range entries {
		t := config.Template{Path: e.path, Vars: map[string]any{}, Sets: e.sets}
		for _, k := range e.keys {
			vals := e.vars[k]
			switch {
			case len(vals) == 1:
				t.Vars[k] = vals[0]
			case len(vals) > 1:
				if t.Matrix == nil {
					t.Matrix = map[string][]any{}
				}
				t.Matrix[k] = vals
			}
		}
		out = append(out, t)
	}
	return out, missing
}

// copiesUnder returns the copied files under root as globs relative to it
// (a copied folder as "folder/**").
func copiesUnder(copies []Copy, root string, tree []string) []string {
	var out []string
	for _, c := range copies {
		rel, ok := strings.CutPrefix(c.Path, root+"/")
		if !ok {
			continue
		}
		if !slices.Contains(tree, c.Path) && hasFileUnder(tree, c.Path) {
			rel += "/**"
		}
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

func hasFileUnder(tree []string, dir string) bool {
	for _, p := range tree {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// groupName names a group after the last folder of its root, or the last
// two joined with "-" (and a number after that) when a group has it.
func groupName(root string, taken map[string]bool) string {
	parts := strings.Split(root, "/")
	name := parts[len(parts)-1]
	if name == "." || name == "" {
		name = "top"
	}
	if taken[name] && len(parts) > 1 {
		name = parts[len(parts)-2] + "-" + name
	}
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d", strings.TrimSuffix(name, fmt.Sprintf("-%d", i-1)), i)
	}
	taken[name] = true
	return name
}

func appendNew(vals []any, more ...any) []any {
	for _, v := range more {
		seen := false
		for _, x := range vals {
			if fmt.Sprintf("%#v", x) == fmt.Sprintf("%#v", v) {
				seen = true
				break
			}
		}
		if !seen {
			vals = append(vals, v)
		}
	}
	return vals
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// recordEnvs maps each loader root to the environment of record for it:
// the one the tests were observed to render with, else one that the
// render code renders with (it has render calls), else the first one
// found. An environment that nothing renders with is not production's.
func (f *Found) recordEnvs() map[string]int {
	out := map[string]int{}
	for i, env := range f.Envs {
		for _, root := range env.Roots {
			if j, ok := out[root]; !ok || f.envRank(i) > f.envRank(j) {
				out[root] = i
			}
		}
	}
	return out
}

// envRank is how surely environment i is production's: 2 the tests
// render with it, 1 the render code renders with it, 0 neither.
func (f *Found) envRank(i int) int {
	switch {
	case f.Envs[i].observed:
		return 2
	case slices.ContainsFunc(f.Sites, func(s Site) bool { return s.Env == i }):
		return 1
	}
	return 0
}

// otherEnvNote says that environment i also has root and that the
// environment of record j gives its templates' options, both side by
// side.
func (f *Found) otherEnvNote(i, j int, root string) string {
	e, r := f.Envs[i], f.Envs[j]
	var why string
	switch ri, rj := f.envRank(i), f.envRank(j); {
	case ri == rj:
		why = "the first one found"
	case rj == 2:
		why = "the one the tests render with"
	default:
		why = "the one the render code renders with; nothing renders with this one"
	}
	return fmt.Sprintf("%s: another environment over the loader root %s, with %s; its templates are judged with the options of the environment at %s, %s, %s", e.Where, root, optionText(e.Opts), r.Where, optionText(r.Opts), why)
}
