package rendercode

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
)

// maxVariants bounds the variable sets that the types of one template add
// to the sets its tests rendered.
const maxVariants = 32

// AddObserved puts the renders that the repository's tests made into f:
// each render becomes a variable set of record of its template, under the
// environment that rendered it (the one read statically when it has the
// same loader root, with the observed options, else a new one). A
// template loaded from text is found by its git blob id and named by its
// file. Renders that failed in the test are not sets of record. The notes
// say what could not be placed.
func (f *Found) AddObserved(obs *Observation) {
	if obs == nil {
		return
	}
	byBlob := map[string][]string{}
	for _, p := range slices.Sorted(maps.Keys(f.Blobs)) {
		byBlob[f.Blobs[p]] = append(byBlob[f.Blobs[p]], p)
	}
	failed := 0
	for _, o := range obs.Renders {
		if o.Error != "" {
			failed++
			continue
		}
		file := o.File
		if file == "" || path.IsAbs(file) {
			file = ""
			if ps := byBlob[o.Blob]; o.Blob != "" && len(ps) > 0 {
				file = ps[0]
			}
		}
		if file == "" {
			f.Notes = append(f.Notes, fmt.Sprintf("%s renders a template (%s) that is no tracked file of the repository; it is not verified.", o.Source(), o.How))
			continue
		}
		// A file the code reads and the tests render is a template,
		// not a copy (from_string of read_text).
		f.Copies = slices.DeleteFunc(f.Copies, func(c Copy) bool { return c.Path == file })
		root, rel := observedRoot(o, file)
		env := f.observedEnv(o, root)
		site := f.observedSite(env, rel, o)
		vars := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(o.Vars)) {
			v, ok := o.Vars[k].Plain()
			if !ok {
				site.Notes = appendNew1(site.Notes, fmt.Sprintf("%s passes %s, %s, which cannot be passed to a render here; renders that use it fail", o.Source(), k, o.Vars[k].Opaque))
				continue
			}
			vars[k] = v
			if o.Vars[k].T == "object" && len(o.Vars[k].Hints) > 0 {
				if site.Attrs == nil {
					site.Attrs = map[string]map[string]TypeInfo{}
				}
				site.Attrs[k] = o.Vars[k].Hints
			}
			if o.Vars[k].T == "enum" {
				site.Types[k] = TypeInfo{Name: o.Vars[k].Cls, Choices: o.Vars[k].Choices}
			}
		}
		for k, h := range o.Hints {
			if _, passed := o.Vars[k]; passed {
				if _, ok := site.Types[k]; !ok {
					site.Types[k] = h
				}
			}
		}
		site.Sets = appendSet(site.Sets, config.VarSet{Name: o.Source(), Vars: vars})
		if site.Vars == nil {
			site.Vars = map[string]Var{}
			for k, v := range vars {
				site.Vars[k] = Var{Values: []any{v}}
			}
		}
	}
	if failed > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d renders of the tests failed in the test itself; they are not variable sets of record.", failed))
	}
	for i := range f.Sites {
		if s := &f.Sites[i]; len(s.Sets) > 0 {
			s.Sets = append(s.Sets, variants(s.Sets, s.Types, s.Attrs)...)
		}
	}
}

// observedRoot returns the loader root that found file and the name
// under it: the search path entry that holds it, else the file's folder.
func observedRoot(o Observed, file string) (root, rel string) {
	if o.Name != "" && o.File != "" {
		if r, ok := strings.CutSuffix(file, "/"+o.Name); ok {
			return r, o.Name
		}
		if file == o.Name {
			return ".", o.Name
		}
	}
	for _, sp := range o.Env.Loader.searchPath() {
		if sp == "." {
			return ".", file
		}
		if r, ok := strings.CutPrefix(file, sp+"/"); ok {
			return sp, r
		}
	}
	return path.Dir(file), path.Base(file)
}

// observedEnv returns the index of the environment of f that has root:
// the one read statically (the one created where the observed render's
// environment was, else the first), whose options the observed ones
// replace, or a new one made from the observation.
func (f *Found) observedEnv(o Observed, root string) int {
	opts := map[string]bool{
		"strict_undefined": o.Env.StrictUndefined, "keep_trailing_newline": o.Env.KeepTrailingNewline,
		"trim_blocks": o.Env.TrimBlocks, "lstrip_blocks": o.Env.LstripBlocks, "autoescape": o.Env.Jinja().Autoescape,
	}
	// The environment the render was made with (where it was created),
	// else the first one over its root.
	order := make([]int, 0, len(f.Envs))
	for i := range f.Envs {
		if f.Envs[i].Where == o.Env.Created && o.Env.Created != "" {
			order = append([]int{i}, order...)
		} else {
			order = append(order, i)
		}
	}
	for _, i := range order {
		e := &f.Envs[i]
		if !slices.Contains(e.Roots, root) {
			continue
		}
		if !e.observed && !maps.Equal(withFalse(e.Opts), opts) {
			e.Notes = append(e.Notes, fmt.Sprintf("%s: the options read in the code (%s) are not the ones the tests render with (%s); the observed ones are used", e.Where, optionText(e.Opts), optionText(opts)))
		}
		if !e.observed {
			e.Opts, e.observed = opts, true
		}
		return i
	}
	where := o.Env.Created
	if where == "" {
		where = o.Where
	}
	roots := []string{root}
	if sp := o.Env.Loader.searchPath(); slices.Contains(sp, root) {
		roots = sp // the loader's whole search path, in Jinja's order
	}
	f.Envs = append(f.Envs, Env{Where: where, Roots: roots, Opts: opts, observed: true})
	return len(f.Envs) - 1
}

// observedSite returns the site of f that holds the observed sets of
// template rel under env, made when there is none.
func (f *Found) observedSite(env int, rel string, o Observed) *Site {
	for i := range f.Sites {
		if s := &f.Sites[i]; s.Env == env && s.Template == rel && s.Types != nil {
			return s
		}
	}
	f.Sites = append(f.Sites, Site{Env: env, Where: o.Where, Template: rel, Types: map[string]TypeInfo{}})
	return &f.Sites[len(f.Sites)-1]
}

func withFalse(m map[string]bool) map[string]bool {
	out := map[string]bool{"strict_undefined": false, "keep_trailing_newline": false, "trim_blocks": false, "lstrip_blocks": false, "autoescape": false}
	maps.Copy(out, m)
	return out
}

func optionText(m map[string]bool) string {
	var on []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] {
			on = append(on, k)
		}
	}
	if len(on) == 0 {
		return "no options on"
	}
	return strings.Join(on, ", ")
}

// variants returns the variable sets that the types of the names add to
// the observed sets: every bool the other way, None and a value for an
// Optional, each member of a Literal or Enum, for the names of the first
// set and the attributes of its objects. One name changes at a time.
func variants(sets []config.VarSet, types map[string]TypeInfo, attrs map[string]map[string]TypeInfo) []config.VarSet {
	first := sets[0]
	var out []config.VarSet
	add := func(name string, vars map[string]any) {
		if len(out) < maxVariants {
			n := len(out)
			out = appendSet(out, config.VarSet{Name: first.Name + ", " + name, Vars: vars})
			if len(out) > n && slices.ContainsFunc(sets, func(s config.VarSet) bool { return sameVars(s.Vars, vars) }) {
				out = out[:n] // a set the tests render already
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(first.Vars)) {
		v := first.Vars[k]
		for _, alt := range alternatives(k, v, types[k], sets) {
			vars := maps.Clone(first.Vars)
			vars[k] = alt
			add(fmt.Sprintf("%s=%s", k, valueText(alt)), vars)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			continue
		}
		for _, a := range slices.Sorted(maps.Keys(obj)) {
			for _, alt := range alternatives(a, obj[a], attrs[k][a], nil) {
				o := maps.Clone(obj)
				o[a] = alt
				vars := maps.Clone(first.Vars)
				vars[k] = o
				add(fmt.Sprintf("%s.%s=%s", k, a, valueText(alt)), vars)
			}
		}
	}
	return out
}

// alternatives returns the other values that name's type allows beside v.
func alternatives(name string, v any, t TypeInfo, sets []config.VarSet) []any {
	var out []any
	if b, ok := v.(bool); ok {
		out = append(out, !b)
	} else if v == nil && t.Bool {
		out = append(out, true, false)
	}
	if t.Optional {
		if v != nil {
			out = append(out, nil)
		} else if s, ok := sample(name, t, sets); ok {
			out = append(out, s)
		}
	}
	for _, c := range t.Choices {
		c = goValue(c)
		if fmt.Sprint(c) != fmt.Sprint(v) {
			out = append(out, c)
		}
	}
	return out
}

// sample is a value for an Optional name that the sets give as None: one
// that another set passes, else one of the hinted type.
func sample(name string, t TypeInfo, sets []config.VarSet) (any, bool) {
	for _, s := range sets {
		if v, ok := s.Vars[name]; ok && v != nil {
			return v, true
		}
	}
	switch t.Of {
	case "int":
		return 1, true
	case "float":
		return 1.5, true
	case "str":
		return "example-" + name, true
	case "bool":
		return true, true
	}
	return nil, false
}

func appendSet(sets []config.VarSet, s config.VarSet) []config.VarSet {
	if slices.ContainsFunc(sets, func(x config.VarSet) bool { return sameVars(x.Vars, s.Vars) }) {
		return sets
	}
	return append(sets, s)
}

func sameVars(a, b map[string]any) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

func appendNew1(s []string, x string) []string {
	if slices.Contains(s, x) {
		return s
	}
	return append(s, x)
}
