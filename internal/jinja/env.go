// Package jinja renders Jinja templates with gonja the way Python Jinja2
// would, and cross-checks the bytes against Python Jinja2 when it is
// installed.
//
// Templates parse and render in a render worker, a child process (see
// worker.go): a template from a pull request can crash or hang the Go
// runtime in ways no recover() catches. Inside the worker every parse and
// render recovers from panics, and every error is an *Error that names the
// repository path of the file where the error is (an included file when
// the error is inside it) and, where it can be found, the line.
package jinja

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/formula-code/template-verify/third_party/gonja"
	gconfig "github.com/formula-code/template-verify/third_party/gonja/config"
	"github.com/formula-code/template-verify/third_party/gonja/exec"

	"github.com/formula-code/template-verify/config"
)

// Env is one Jinja environment: a loader root with its files and options.
// An Env is safe for concurrent use.
type Env struct {
	id     uint64            // names the environment in the render worker
	root   string            // repository path of the loader root ("" for the top)
	files  map[string]string // loader name ("/" + path relative to root) -> source
	opts   config.Jinja
	cfg    *gconfig.Config
	loader *rootedLoader

	// includes caches parsed included templates: Jinja2 caches them in its
	// environment too, and gonja would parse them again on every render.
	mu       sync.Mutex
	includes map[string]*parseResult
	// names caches the Jinja2 name check of each template (see names.go):
	// the files of an Env never change.
	names map[string]*Error

	sourcesOnce sync.Once
	sources     map[string]string
}

// envIDs numbers environments for the render worker.
var envIDs atomic.Uint64

type parseResult struct {
	t   *exec.Template
	err error
}

// NewEnv makes an environment over files (keyed by repository path) whose
// loader root is root. Files outside root are ignored. A root of "" or "."
// is the repository top.
func NewEnv(files map[string][]byte, root string, opts config.Jinja) (*Env, error) {
	return NewSearchEnv(files, root, nil, opts)
}

// NewSearchEnv is NewEnv for a loader that searches several folders
// (search, in Jinja's order, root among them): a loader name is the file
// of the first folder that has it, as Jinja's FileSystemLoader and
// ChoiceLoader resolve it. files holds the files of every folder.
func NewSearchEnv(files map[string][]byte, root string, search []string, opts config.Jinja) (*Env, error) {
	clean := func(r string) string {
		r = strings.TrimPrefix(path.Clean(r), "/")
		if r == "." {
			return ""
		}
		return r
	}
	root = clean(root)
	if len(search) == 0 {
		search = []string{root}
	}
	mem := make(map[string]string, len(files))
	for _, dir := range search {
		dir = clean(dir)
		for p, data := range files {
			rel := p
			if dir != "" {
				var ok bool
				if rel, ok = strings.CutPrefix(p, dir+"/"); !ok {
					continue
				}
			}
			if _, taken := mem["/"+rel]; !taken {
				mem["/"+rel] = string(data)
			}
		}
	}
	e := newEnv(mem, root, opts)
	e.id = envIDs.Add(1)
	return e, nil
}

// newEnv makes an environment over files keyed by loader name.
func newEnv(mem map[string]string, root string, opts config.Jinja) *Env {
	cfg := gconfig.New()
	cfg.StrictUndefined = opts.StrictUndefined
	cfg.KeepTrailingNewline = opts.KeepTrailingNewline
	cfg.TrimBlocks = opts.TrimBlocks
	cfg.LeftStripBlocks = opts.LstripBlocks
	cfg.AutoEscape = opts.Autoescape
	e := &Env{root: root, files: mem, opts: opts, cfg: cfg, includes: map[string]*parseResult{}, names: map[string]*Error{}}
	e.loader = &rootedLoader{env: e}
	return e
}

// Options returns the environment's options.
func (e *Env) Options() config.Jinja { return e.opts }

// Root returns the repository path of the loader root.
func (e *Env) Root() string { return e.root }

// Source returns the source of a template by its name relative to the root.
func (e *Env) Source(name string) (string, bool) {
	s, ok := e.files["/"+name]
	return s, ok
}

// Sources returns every file of the environment keyed by its name relative
// to the root. The map is made once and shared: do not change it.
func (e *Env) Sources() map[string]string {
	e.sourcesOnce.Do(func() {
		e.sources = make(map[string]string, len(e.files))
		for k, v := range e.files {
			e.sources[strings.TrimPrefix(k, "/")] = v
		}
	})
	return e.sources
}

// file returns the repository path of a loader name.
func (e *Env) file(name string) string {
	return path.Join(e.root, strings.TrimPrefix(name, "/"))
}

// local is a template parsed in this process, ready to render many times.
// Only the render worker and tests parse and render in process. A local is
// safe for concurrent use.
type local struct {
	env  *Env
	name string
	t    *exec.Template
	// size is the length of the last output, to size the next one's buffer.
	size atomic.Int64
}

// parseLocal parses the template name (relative to the root) in this
// process. The name follows Jinja2's loader rules: "a/./b" is "a/b", and
// ".." is not allowed.
func (e *Env) parseLocal(name string) (*local, error) {
	clean, ok := templateName(name)
	if !ok {
		return nil, &Error{File: e.file(name), Msg: fmt.Sprintf("template %q not found", name)}
	}
	t, err := e.parse(clean)
	if err != nil {
		return nil, err
	}
	tpl := &local{env: e, name: clean, t: t}
	tpl.size.Store(int64(len(e.files["/"+clean])) + 256)
	return tpl, nil
}

// parse parses a clean loader name without a cache. The error is an *Error.
func (e *Env) parse(name string) (t *exec.Template, err error) {
	file := e.file(name)
	src, ok := e.files["/"+name]
	if !ok {
		return nil, &Error{File: file, Msg: fmt.Sprintf("template %q not found", name)}
	}
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &Error{File: file, Msg: fmt.Sprintf("the template engine panicked while parsing: %v", p), Panic: true}
		}
	}()
	parsed, perr := exec.NewTemplate("/"+name, e.cfg, e.loader, environment)
	if perr != nil {
		return nil, e.parseError(name, src, perr)
	}
	if err := e.checkNames(name, src); err != nil {
		return nil, err
	}
	return parsed, nil
}

// checkNames runs the Jinja2 name check once per template.
func (e *Env) checkNames(name, src string) error {
	e.mu.Lock()
	err, ok := e.names[name]
	e.mu.Unlock()
	if !ok {
		if line, msg, bad := e.unknownName(src); bad {
			err = &Error{File: e.file(name), Line: line, Msg: "syntax error: " + msg}
		}
		e.mu.Lock()
		e.names[name] = err
		e.mu.Unlock()
	}
	if err != nil {
		return err
	}
	return nil
}

// parseCached parses an included template once per environment.
func (e *Env) parseCached(name string) (*exec.Template, error) {
	e.mu.Lock()
	r, ok := e.includes[name]
	e.mu.Unlock()
	if ok {
		return r.t, r.err
	}
	t, err := e.parse(name)
	e.mu.Lock()
	e.includes[name] = &parseResult{t: t, err: err}
	e.mu.Unlock()
	return t, err
}

// render executes the template with vars in this process; the output
// stops at maxOut bytes. Integers must be Go ints, not float64, to print as
// Jinja2 prints them. The error is an *Error.
func (t *local) render(vars map[string]any, maxOut int) (string, error) {
	// A buffer of the right size from the start: gonja's ExecuteToString
	// grows a bytes.Buffer step by step and copies it at the end, which
	// cost a third of the render time of test.sh.
	var b strings.Builder
	b.Grow(min(int(t.size.Load())+64, maxOut))
	if err := t.execute(&b, vars, maxOut); err != nil {
		return "", err
	}
	return b.String(), nil
}

// renderTo is render into out, which it empties first. The render worker
// renders every job into one buffer: a new string per render was most of
// what a render allocated, and the collector's work grew with it.
func (t *local) renderTo(out *bytes.Buffer, vars map[string]any, maxOut int) error {
	out.Reset()
	out.Grow(min(int(t.size.Load())+64, maxOut))
	return t.execute(out, vars, maxOut)
}

func (t *local) execute(out interface {
	io.Writer
	io.StringWriter
	Len() int
}, vars map[string]any, maxOut int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &Error{File: t.env.file(t.name), Msg: fmt.Sprintf("the template engine panicked while rendering: %v", p), Panic: true}
		}
	}()
	data := make(map[string]any, len(vars)+1)
	maps.Copy(data, vars)
	data[maxOutputKey] = maxOut
	if rerr := t.t.Execute(&limitWriter{w: out, max: maxOut}, exec.NewContext(data)); rerr != nil {
		return renderError(t.env.file(t.name), rerr)
	}
	t.size.Store(int64(out.Len()))
	return nil
}

// renderLocal parses and renders name in this process, for tests.
func (e *Env) renderLocal(name string, vars map[string]any) (string, error) {
	t, err := e.parseLocal(name)
	if err != nil {
		return "", err
	}
	return t.render(vars, DefaultLimits.Output)
}

// environment is gonja's default environment with changes that bring it
// closer to Jinja2: an include that resolves names from the loader root,
// caches parsed files and names the included file in its errors; the
// lowercase literal none, which Jinja2 has and gonja lacks; the tojson and
// reverse filters of Jinja2; str.replace with an optional count; range as a
// list; and guards against endless recursion (guards.go).
var environment = newEnvironment()

func newEnvironment() *exec.Environment {
	def := gonja.DefaultEnvironment
	cs := exec.NewControlStructureSet(map[string]parserFunc{}).Update(def.ControlStructures)
	parsers := wrapParsers(def.ControlStructures)
	parsers["include"] = includeParser
	for name, p := range parsers {
		if err := cs.Replace(name, p); err != nil {
			panic(fmt.Sprintf("jinja: gonja has no %s statement to replace: %v", name, err))
		}
	}
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(def.Filters)
	for name, fn := range map[string]exec.FilterFunction{"tojson": filterToJSON, "reverse": filterReverse} {
		if err := filters.Replace(name, fn); err != nil {
			panic(fmt.Sprintf("jinja: gonja has no %s filter to replace: %v", name, err))
		}
	}
	for name, kw := range map[string]string{"center": "width", "indent": "width"} {
		fn, ok := filters.Get(name)
		if !ok {
			panic(fmt.Sprintf("jinja: gonja has no %s filter", name))
		}
		if err := filters.Replace(name, widthGuard(name, kw, fn)); err != nil {
			panic(fmt.Sprintf("jinja: gonja has no %s filter to replace: %v", name, err))
		}
	}
	methods := def.Methods
	methods.Str = strMethods(def.Methods.Str)
	ctx := def.Context.Inherit()
	ctx.Set("none", nil)
	ctx.Set("range", rangeFunc)
	return &exec.Environment{
		Context:           ctx,
		Filters:           filters,
		Tests:             def.Tests,
		ControlStructures: cs,
		Methods:           methods,
	}
}
