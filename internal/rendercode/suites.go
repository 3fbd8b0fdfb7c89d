package rendercode

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
)

// SuiteName is the name of the pytest suite derived from the render code.
const SuiteName = "render-code"

// maxSuiteFiles bounds the test files of the derived suite.
const maxSuiteFiles = 50

// Suite returns the pytest suite that follows the derived roots: its files
// are the tracked test files (test_*.py, *_test.py) that name a loader root
// (its last two folders, or the root itself when it has one) or import a
// render module; it runs when a file under a root, a render module or one
// of its files changes. PYTHONPATH holds the import roots of the render
// modules (the folder above their top package). ok is false when no test
// file qualifies.
func (f *Found) Suite(groups []config.Group) (config.Suite, bool) {
	render := f.renderModules()
	index := suffixIndex(f.pyPaths())
	var tokens [][]byte
	for _, g := range groups {
		parts := strings.Split(g.Root, "/")
		if len(parts) > 2 {
			parts = parts[len(parts)-2:]
		}
		tokens = append(tokens, []byte(strings.Join(parts, "/")))
	}
	var files []string
	for _, p := range f.pyPaths() {
		if !f.Pytest.isTest(p) {
			continue
		}
		src := f.Sources[p]
		refers := slices.ContainsFunc(tokens, func(t []byte) bool { return bytes.Contains(src, t) })
		if !refers {
			refers = slices.ContainsFunc(imports(p, src, index), func(q string) bool { return slices.Contains(render, q) })
		}
		if refers {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return config.Suite{}, false
	}
	slices.Sort(files)
	if len(files) > maxSuiteFiles {
		files = files[:maxSuiteFiles]
	}
	s := config.Suite{Name: SuiteName, Files: files}
	for _, g := range groups {
		s.Triggers = append(s.Triggers, g.Root+"/**")
	}
	s.Triggers = append(append(s.Triggers, render...), files...)
	var roots []string
	for _, m := range render {
		if r := f.importRoot(m); !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	if len(roots) > 0 {
		s.Env = map[string]string{"PYTHONPATH": strings.Join(roots, ":")}
	}
	return s, true
}

// renderModules returns the Python files that hold an environment or a
// render call, in path order.
func (f *Found) renderModules() []string {
	var out []string
	add := func(where string) {
		file, _, _ := strings.Cut(where, ":")
		if file != "" && !slices.Contains(out, file) {
			out = append(out, file)
		}
	}
	for _, e := range f.Envs {
		add(e.Where)
	}
	for _, s := range f.Sites {
		add(s.Where)
	}
	slices.Sort(out)
	return out
}

func (f *Found) pyPaths() []string {
	var out []string
	for _, p := range f.Tree {
		if strings.HasSuffix(p, ".py") {
			out = append(out, p)
		}
	}
	return out
}

// importRoot returns the folder that Python must have on its path to
// import the module file p: the folder above the highest package (a folder
// with __init__.py) that holds p without a gap.
func (f *Found) importRoot(p string) string {
	dir := path.Dir(p)
	for dir != "." && slices.Contains(f.Tree, dir+"/__init__.py") {
		dir = path.Dir(dir)
	}
	return dir
}
