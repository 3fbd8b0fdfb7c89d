// Package jinja renders Jinja templates with gonja the way Python Jinja2
// would, and cross-checks the bytes against Python Jinja2 when it is
// installed.
//
// Every render recovers from panics inside the engine, and every error names
// the template file and, where it can be found, the line.
package jinja

import (
	"fmt"
	"path"
	"strings"

	"github.com/nikolalohinski/gonja/v2"
	gconfig "github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"

	"github.com/formula-code/template-verify/config"
)

// Error is a render error. File is the repository path of the template where
// the error is, which may be an included file; Line is 0 when unknown.
type Error struct {
	File  string
	Line  int
	Msg   string
	Panic bool // the engine panicked
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Env is one Jinja environment: a loader root with its files and options.
type Env struct {
	root   string            // repository path of the loader root
	files  map[string]string // loader name ("/" + path relative to root) -> source
	opts   config.Jinja
	cfg    *gconfig.Config
	loader loaders.Loader
}

// NewEnv makes an environment over files (keyed by repository path) whose
// loader root is root. Files outside root are ignored.
func NewEnv(files map[string][]byte, root string, opts config.Jinja) (*Env, error) {
	root = strings.TrimSuffix(root, "/")
	mem := map[string]string{}
	for p, data := range files {
		rel, ok := strings.CutPrefix(p, root+"/")
		if !ok {
			continue
		}
		mem["/"+rel] = string(data)
	}
	if len(mem) == 0 {
		mem["/.empty"] = "" // the memory loader refuses an empty map
	}
	loader, err := loaders.NewMemoryLoader(mem)
	if err != nil {
		return nil, fmt.Errorf("jinja loader for %s: %w", root, err)
	}
	cfg := gconfig.New()
	cfg.StrictUndefined = opts.StrictUndefined
	cfg.KeepTrailingNewline = opts.KeepTrailingNewline
	cfg.TrimBlocks = opts.TrimBlocks
	cfg.LeftStripBlocks = opts.LstripBlocks
	cfg.AutoEscape = opts.Autoescape
	return &Env{root: root, files: mem, opts: opts, cfg: cfg, loader: rootedLoader{loader}}, nil
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
// to the root.
func (e *Env) Sources() map[string]string {
	out := make(map[string]string, len(e.files))
	for k, v := range e.files {
		out[strings.TrimPrefix(k, "/")] = v
	}
	return out
}

// Template is a parsed template, ready to render many times.
type Template struct {
	env  *Env
	name string
	t    *exec.Template
}

// Parse parses the template name (relative to the root).
func (e *Env) Parse(name string) (t *Template, err error) {
	file := path.Join(e.root, name)
	if _, ok := e.files["/"+name]; !ok {
		return nil, &Error{File: file, Msg: "template not found"}
	}
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &Error{File: file, Msg: fmt.Sprintf("the template engine panicked while parsing: %v", p), Panic: true}
		}
	}()
	parsed, perr := exec.NewTemplate("/"+name, e.cfg, e.loader, gonja.DefaultEnvironment)
	if perr != nil {
		return nil, e.wrap(file, perr)
	}
	return &Template{env: e, name: name, t: parsed}, nil
}

// Render executes the template with vars. Integers must be Go ints, not
// float64, to print as Jinja2 prints them.
func (t *Template) Render(vars map[string]any) (out string, err error) {
	file := path.Join(t.env.root, t.name)
	defer func() {
		if p := recover(); p != nil {
			out, err = "", &Error{File: file, Msg: fmt.Sprintf("the template engine panicked while rendering: %v", p), Panic: true}
		}
	}()
	s, rerr := t.t.ExecuteToString(exec.NewContext(vars))
	if rerr != nil {
		return "", t.env.wrap(file, rerr)
	}
	return s, nil
}

// Render parses and renders name in one call.
func (e *Env) Render(name string, vars map[string]any) (string, error) {
	t, err := e.Parse(name)
	if err != nil {
		return "", err
	}
	return t.Render(vars)
}

// wrap turns a gonja error into an Error that names the file and line.
func (e *Env) wrap(file string, err error) error {
	line := lineOf(err)
	msg := cleanMessage(err.Error())
	return &Error{File: file, Line: line, Msg: msg}
}

// rootedLoader makes include names relative to the loader root, as Jinja2's
// FileSystemLoader does, instead of relative to the including file.
type rootedLoader struct{ loaders.Loader }

func (l rootedLoader) Resolve(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return l.Loader.Resolve(p)
}

func (l rootedLoader) Read(p string) (ioReader, error) {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return l.Loader.Read(p)
}

func (l rootedLoader) Inherit(string) (loaders.Loader, error) { return l, nil }
