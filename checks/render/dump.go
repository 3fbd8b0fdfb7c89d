package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
)

// DumpIndex is the name of the index file in a dump folder.
const DumpIndex = "index.json"

// DumpTo makes every render check in list write its renders into dir (see
// Check.DumpDir); an empty dir changes nothing.
func DumpTo(list []checks.Check, dir string) {
	if dir == "" {
		return
	}
	for _, c := range list {
		if rc, ok := c.(*Check); ok {
			rc.DumpDir = dir
		}
	}
}

// dumpIndex is the index file of a dump: what each file holds.
type dumpIndex struct {
	// Engine made the bytes: "Python Jinja2 3.1.6" or "gonja".
	Engine  string      `json:"engine"`
	Renders []dumpEntry `json:"renders"`
}

// dumpEntry is one template, one side and one variable set.
type dumpEntry struct {
	// File is the rendered output, relative to the dump folder; empty
	// when the render failed.
	File     string `json:"file,omitempty"`
	Side     string `json:"side"`     // "base" or "head"
	Template string `json:"template"` // repository path
	Commit   string `json:"commit"`   // the side's commit
	Group    string `json:"group"`
	Root     string `json:"root"` // the group's loader root
	// Jinja are the group's environment options, with Python's names.
	Jinja map[string]bool `json:"jinja"`
	Name  string          `json:"name"` // the template's loader name, relative to root
	Set   string          `json:"set"`
	// Vars are the variables of the set, as Python gets them: integers
	// without a dot, floats with one, null for None.
	Vars   map[string]any `json:"vars"`
	Engine string         `json:"engine"` // "Jinja2" or "gonja"
	Error  string         `json:"error,omitempty"`
	Bytes  int            `json:"bytes"`
}

// dump writes the bytes of record of every job into dir: one file per
// template, side and variable set, at SIDE/TEMPLATE/SET, and DumpIndex.
// A render that failed has no file; its entry holds the error.
func dump(dir string, jobs []*job, engine engineResult, base, head string) error {
	idx := dumpIndex{Engine: "gonja"}
	if engine.jinja2 {
		idx.Engine = "Python Jinja2 " + engine.version
	}
	used := map[string]bool{}
	for _, j := range jobs {
		for _, atHead := range []bool{false, true} {
			s, rel, where, commit := &j.base, j.tmpl.OldRel, "base", base
			if atHead {
				s, rel, where, commit = &j.head, j.tmpl.Rel, "head", head
			}
			if s.env == nil && s.err == nil {
				continue // the template is not on this side
			}
			e := dumpEntry{
				Side: where, Template: path.Join(j.group.Root, rel), Commit: commit, Group: j.group.Name, Root: j.group.Root, Name: rel,
				Jinja: map[string]bool{
					"strict_undefined": j.group.Jinja.StrictUndefined, "keep_trailing_newline": j.group.Jinja.KeepTrailingNewline,
					"trim_blocks": j.group.Jinja.TrimBlocks, "lstrip_blocks": j.group.Jinja.LstripBlocks, "autoescape": j.group.Jinja.Autoescape,
				},
				Set: j.set.Name, Vars: pyVars(j.set.Vars), Engine: s.engine, Bytes: len(s.output),
			}
			if e.Engine == "" {
				e.Engine = "gonja"
			}
			if s.err != nil {
				e.Error, e.Bytes = s.err.Error(), 0
				idx.Renders = append(idx.Renders, e)
				continue
			}
			file, err := dumpName(where, e.Template, j.set.Name, used)
			if err != nil {
				return err
			}
			full := filepath.Join(dir, filepath.FromSlash(file))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return fmt.Errorf("dump renders: %w", err)
			}
			if err := os.WriteFile(full, []byte(s.output), 0o644); err != nil {
				return fmt.Errorf("dump renders: %w", err)
			}
			e.File = file
			idx.Renders = append(idx.Renders, e)
		}
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return fmt.Errorf("dump renders: index: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dump renders: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, DumpIndex), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("dump renders: %w", err)
	}
	return nil
}

// dumpName is SIDE/TEMPLATE/SET with the set name made a safe file name
// (characters other than letters, digits and "._=,+-" become "_"; a long
// name is cut and gets a hash), unique among used.
func dumpName(side, template, set string, used map[string]bool) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(template)) {
		return "", fmt.Errorf("dump renders: template path %q leaves the folder", template)
	}
	name := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._=,+-", r)) {
			return r
		}
		return '_'
	}, set)
	if len(name) > 100 || name == "" || name == "." || name == ".." {
		sum := sha256.Sum256([]byte(set))
		name = name[:min(len(name), 80)] + "-" + hex.EncodeToString(sum[:6])
	}
	file := side + "/" + template + "/" + name
	for i := 2; used[file]; i++ {
		file = side + "/" + template + "/" + name + "-" + strconv.Itoa(i)
	}
	used[file] = true
	return file, nil
}

// pyVars returns vars for the index with the types Python gets: a float
// keeps its dot (5.0), which encoding/json would drop.
func pyVars(vars map[string]any) map[string]any {
	out := make(map[string]any, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out[k] = pyVarValue(vars[k], 0)
	}
	return out
}

func pyVarValue(v any, depth int) any {
	if v == nil || depth > 100 {
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprint(f) // JSON has no NaN; the index says what it was
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.Number(s)
	case reflect.Slice, reflect.Array:
		list := make([]any, rv.Len())
		for i := range list {
			list[i] = pyVarValue(rv.Index(i).Interface(), depth+1)
		}
		return list
	case reflect.Map:
		m := map[string]any{}
		for _, k := range rv.MapKeys() {
			m[fmt.Sprint(k.Interface())] = pyVarValue(rv.MapIndex(k).Interface(), depth+1)
		}
		return m
	}
	return v
}
