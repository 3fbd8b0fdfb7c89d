// Package rendercode finds what to verify in a repository without a
// configuration file: it reads the repository's Python render code
// statically (Python's ast in a sandboxed, limited helper; the code is
// never imported or run) and derives the template groups from it: every
// jinja2.Environment's loader roots and options, the templates it loads,
// the files that are copied rather than rendered, and the variables (with
// defaults, None and both booleans) each render call passes.
package rendercode

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/sandbox"
)

//go:embed scope.py
var scopeScript string

//go:embed values.py
var valuesScript string

//go:embed envs.py
var envsScript string

//go:embed derive.py
var deriveScript string

// Bounds of one reading.
var (
	// Timeout limits one run of the Python helper.
	Timeout = time.Minute
	// Memory is the helper's memory limit (RLIMIT_AS).
	Memory int64 = 1 << 30
)

const (
	maxFileSize  = 1 << 20  // a larger .py file is not read
	maxFiles     = 400      // .py files sent to the helper
	maxTotalSize = 16 << 20 // bytes of all .py files read
	maxAnswer    = 16 << 20
)

// Env is one jinja2.Environment(...) call.
type Env struct {
	Where      string          `json:"where"` // "file:line"
	Roots      []string        `json:"roots"` // repository-relative loader roots
	Unresolved []string        `json:"unresolved"`
	Opts       map[string]bool `json:"opts"`
	Notes      []string        `json:"notes"`
	// observed is true once a render of the tests gave the options.
	observed bool
}

// Var is one variable of a render call: the values it takes (one value,
// or several where a boolean or an optional type gives more) and its type
// as annotated.
type Var struct {
	Values []any  `json:"values"`
	Type   string `json:"type"`
}

// Site is one template that an environment renders, at one call.
type Site struct {
	Env      int            `json:"env"`
	Where    string         `json:"where"`
	Template string         `json:"template"` // a loader name, or
	Glob     string         `json:"glob"`     // a glob of loader names
	Vars     map[string]Var `json:"vars"`
	Notes    []string       `json:"notes"`
	// Sets are the variable sets of record that the repository's own
	// tests rendered the template with, and Types the hints of their
	// names (observe.go); empty for a site read statically.
	Sets  []config.VarSet                `json:"-"`
	Types map[string]TypeInfo            `json:"-"`
	Attrs map[string]map[string]TypeInfo `json:"-"`
}

// Copy is a file the render code uses verbatim: copied with shutil, or
// read with read_text, read_bytes or open.
type Copy struct {
	Path  string `json:"path"`
	Where string `json:"where"`
	Kind  string `json:"kind"` // "copied" or "read"
}

// Found is what the helper read in the render code at one commit.
type Found struct {
	Envs   []Env    `json:"envs"`
	Sites  []Site   `json:"sites"`
	Copies []Copy   `json:"copies"`
	Notes  []string `json:"notes"`
	Errors []struct {
		File  string `json:"file"`
		Error string `json:"error"`
	} `json:"errors"`
	// Files are the Python files read, Tree every tracked path, and
	// Sources the text of every .py file read (for the suites).
	Files   []string          `json:"-"`
	Tree    []string          `json:"-"`
	Blobs   map[string]string `json:"-"` // path -> git blob id
	Sources map[string][]byte `json:"-"`
	// Pytest says which files pytest collects as tests (pytestini.go).
	Pytest pytestConfig `json:"-"`
	// Observation holds the renders the repository's tests made (observe.go).
	Observation *Observation `json:"-"`
	// Cut says that the bounds left Python files out.
	Cut string `json:"-"`
}

// Read reads the Python render code at rev with the interpreter python.
func Read(ctx context.Context, repo gitx.Repo, rev, python string) (*Found, error) {
	entries, err := repo.ListTree(ctx, rev, "")
	if err != nil {
		return nil, fmt.Errorf("render code at %s: %w", rev, err)
	}
	f := &Found{Sources: map[string][]byte{}, Blobs: map[string]string{}}
	var pyPaths, shas []string
	total := 0
	for _, e := range entries {
		f.Tree = append(f.Tree, e.Path)
		f.Blobs[e.Path] = e.SHA
		if !strings.HasSuffix(e.Path, ".py") || e.Mode == "120000" {
			continue
		}
		pyPaths = append(pyPaths, e.Path)
		shas = append(shas, e.SHA)
	}
	var cfgPaths []string
	for _, pf := range pytestFiles {
		if sha, ok := f.Blobs[pf.file]; ok {
			cfgPaths = append(cfgPaths, pf.file)
			shas = append(shas, sha)
		}
	}
	blobs, err := repo.ReadBlobs(ctx, shas)
	if err != nil {
		return nil, fmt.Errorf("render code at %s: %w", rev, err)
	}
	cfgFiles := map[string][]byte{}
	for i, p := range cfgPaths {
		cfgFiles[p] = blobs[shas[len(pyPaths)+i]]
	}
	f.Pytest = readPytestConfig(cfgFiles)
	for i, p := range pyPaths {
		data := blobs[shas[i]]
		if len(data) > maxFileSize || total+len(data) > maxTotalSize {
			f.Cut = fmt.Sprintf("Python files larger than %d KiB, or past %d MiB in all, are not read", maxFileSize>>10, maxTotalSize>>20)
			continue
		}
		total += len(data)
		f.Sources[p] = data
	}
	f.Files = renderFiles(f.Sources, pyPaths)
	if len(f.Files) == 0 {
		return f, nil
	}
	send := map[string]string{}
	for _, p := range f.Files {
		send[p] = string(f.Sources[p])
	}
	body, err := json.Marshal(map[string]any{"files": send, "py_paths": pyPaths})
	if err != nil {
		return nil, fmt.Errorf("render code helper request: %w", err)
	}
	if err := run(ctx, python, body, f); err != nil {
		return nil, err
	}
	return f, nil
}

// run runs the helper in the sandbox and decodes its answer into f.
func run(ctx context.Context, python string, body []byte, f *Found) error {
	dir, err := os.MkdirTemp("", "tv-rendercode-")
	if err != nil {
		return fmt.Errorf("render code helper: %w", err)
	}
	defer os.RemoveAll(dir)
	out := sandbox.Run(ctx, sandbox.Spec{
		Args:      []string{python, "-I", "-c", scopeScript + "\n" + valuesScript + "\n" + envsScript + "\n" + deriveScript, strconv.FormatInt(Memory, 10)},
		Dir:       dir,
		Env:       []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"},
		Stdin:     bytes.NewReader(body),
		Timeout:   Timeout,
		MaxOutput: maxAnswer,
		Sandbox:   true,
	})
	switch {
	case out.Err != nil:
		return fmt.Errorf("render code helper: %w (stderr: %s)", out.Err, sandbox.Tail(out.Stderr, 2000))
	case out.ExitCode != 0 && bytes.Contains(out.Stderr, []byte("MemoryError")):
		return fmt.Errorf("render code helper stopped: it used more than %d MB of memory", Memory>>20)
	case out.ExitCode != 0:
		return fmt.Errorf("render code helper exited with code %d: %s", out.ExitCode, sandbox.Tail(out.Stderr, 2000))
	case out.Truncated:
		return fmt.Errorf("render code helper: the answer is larger than %d MiB", maxAnswer>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(out.Stdout))
	dec.UseNumber()
	if err := dec.Decode(f); err != nil {
		return fmt.Errorf("render code helper: bad answer: %w", err)
	}
	for _, s := range f.Sites {
		for _, v := range s.Vars {
			for i := range v.Values {
				v.Values[i] = goValue(v.Values[i])
			}
		}
	}
	return nil
}

// goValue turns JSON numbers into Go ints where they are integers (the
// renderers want ints, not float64).
func goValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.Atoi(x.String()); err == nil {
			return n
		}
		fl, _ := x.Float64()
		return fl
	case []any:
		for i := range x {
			x[i] = goValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = goValue(x[k])
		}
	}
	return v
}

var (
	fromImport  = regexp.MustCompile(`(?m)^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)`)
	plainImport = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+([\w.]+)`)
	jinjaImport = regexp.MustCompile(`(?m)^[ \t]*(from[ \t]+jinja2[\w.]*[ \t]+import|import[ \t]+jinja2)`)
)

// renderFiles returns the Python files to read: those that import jinja2,
// the files they import, and the files that import them (one step each
// way: the dataclasses and constants they use, the callers that copy files
// and pass variables), at most maxFiles, in path order. Test code is not
// render code: an environment a test builds says what the test renders,
// not what production renders (isTestFile).
func renderFiles(sources map[string][]byte, pyPaths []string) []string {
	pyPaths = slices.DeleteFunc(slices.Clone(pyPaths), isTestFile)
	var jinja []string
	for _, p := range pyPaths {
		if jinjaImport.Match(sources[p]) {
			jinja = append(jinja, p)
		}
	}
	if len(jinja) == 0 {
		return nil
	}
	index := suffixIndex(pyPaths)
	pick := map[string]bool{}
	for _, p := range jinja {
		pick[p] = true
		for _, imp := range imports(p, sources[p], index) {
			pick[imp] = true
		}
	}
	for _, p := range pyPaths {
		if pick[p] {
			continue
		}
		for _, imp := range imports(p, sources[p], index) {
			if slices.Contains(jinja, imp) {
				pick[p] = true
				break
			}
		}
	}
	out := make([]string, 0, len(pick))
	for p := range pick {
		out = append(out, p)
	}
	slices.Sort(out)
	// The jinja2 files first when the bound cuts.
	if len(out) > maxFiles {
		rest := slices.DeleteFunc(slices.Clone(out), func(p string) bool { return slices.Contains(jinja, p) })
		out = append(slices.Clone(jinja), rest...)[:maxFiles]
		slices.Sort(out)
	}
	return out
}

// isTestFile reports whether p is test code: test_*.py, *_test.py,
// conftest.py, or a file under a folder named tests or test.
func isTestFile(p string) bool {
	base := path.Base(p)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" {
		return true
	}
	return slices.ContainsFunc(strings.Split(path.Dir(p), "/"), func(d string) bool { return d == "tests" || d == "test" })
}

// suffixIndex maps every path suffix that starts after a "/" (and each
// whole path) to the paths that end with it.
func suffixIndex(paths []string) map[string][]string {
	index := map[string][]string{}
	for _, p := range paths {
		index[p] = append(index[p], p)
		for i := range len(p) {
			if p[i] == '/' {
				index[p[i+1:]] = append(index[p[i+1:]], p)
			}
		}
	}
	return index
}

// imports returns the tracked .py files that the source of file p imports.
func imports(p string, src []byte, index map[string][]string) []string {
	var mods []string
	for _, m := range fromImport.FindAllSubmatch(src, -1) {
		mod := string(m[1])
		if strings.HasPrefix(mod, ".") {
			dots := len(mod) - len(strings.TrimLeft(mod, "."))
			dir := path.Dir(p)
			for range dots - 1 {
				dir = path.Dir(dir)
			}
			mod = strings.ReplaceAll(path.Join(dir, strings.TrimLeft(mod, ".")), "/", ".")
		}
		mods = append(mods, mod)
		for _, name := range strings.FieldsFunc(string(m[2]), func(r rune) bool {
			return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '(' || r == ')' || r == '\\'
		}) {
			if name != "*" && name != "as" {
				mods = append(mods, mod+"."+name)
			}
		}
	}
	for _, m := range plainImport.FindAllSubmatch(src, -1) {
		mods = append(mods, string(m[1]))
	}
	var out []string
	for _, mod := range mods {
		rel := strings.ReplaceAll(strings.Trim(mod, "."), ".", "/")
		if rel == "" {
			continue
		}
		for _, cand := range []string{rel + ".py", rel + "/__init__.py"} {
			for _, q := range index[cand] {
				if q != p && !slices.Contains(out, q) {
					out = append(out, q)
				}
			}
		}
	}
	return out
}
