package jinja

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"unsafe"

	controlStructures "github.com/formula-code/template-verify/third_party/gonja/builtins/control_structures"
	"github.com/formula-code/template-verify/third_party/gonja/exec"
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
	"github.com/formula-code/template-verify/third_party/gonja/parser"
)

// A template from a pull request can recurse without end: a macro that calls
// itself, a file that includes or extends itself. Python Jinja2 stops with
// a RecursionError; gonja overflows the Go stack, which kills the whole
// process (recover cannot catch it). These guards turn each case into an
// error. Jinja2 3.1 under Python's default recursion limit stops macro
// recursion at 247 levels and include recursion at about 990, so these
// limits never fail a template that Jinja2 renders.
const (
	maxMacroDepth   = 400
	maxIncludeDepth = 1000
	// maxParseFrames bounds the Go stack of a parse that follows extends.
	maxParseFrames = 3000
)

// limitWriter is the output of a render; it stops the render when the
// output passes max bytes.
type limitWriter struct {
	w interface {
		io.Writer
		io.StringWriter
		Len() int
	}
	max int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if err := l.room(len(p)); err != nil {
		return 0, err
	}
	return l.w.Write(p)
}

func (l *limitWriter) WriteString(s string) (int, error) {
	if err := l.room(len(s)); err != nil {
		return 0, err
	}
	return l.w.WriteString(s)
}

func (l *limitWriter) room(n int) error {
	if l.w.Len()+n > l.max {
		return fmt.Errorf("the output is larger than the limit of %s (limits.render_output)", byteSize(l.max))
	}
	return nil
}

// depthKey holds the include depth in a render's context; templates cannot
// name it.
const depthKey = "\x00include depth"

func includeDepth(ctx *exec.Context) int {
	if v, ok := ctx.Get(depthKey); ok {
		if n, ok := v.(int); ok {
			return n
		}
	}
	return 0
}

// guardMacro counts the calls of one macro that are in progress. Each
// render defines its macros again, so the counter belongs to one render.
// sig, when known, checks the keyword arguments first (see macroSig).
func guardMacro(name string, fn exec.Macro, sig *macroSig) exec.Macro {
	depth := 0
	return func(params *exec.VarArgs) *exec.Value {
		if depth >= maxMacroDepth {
			return exec.AsValue(fmt.Errorf("macro %q calls itself more than %d levels deep", name, maxMacroDepth))
		}
		if sig != nil && len(params.KwArgs) > 1 {
			if err := sig.check(params); err != nil {
				return exec.AsValue(err)
			}
		}
		depth++
		defer func() { depth-- }()
		return fn(params)
	}
}

// macroSig is the parameter list of a macro. gonja binds keyword arguments
// in map order, so with two bad ones its error names either at random
// (FuzzRender saw two errors for one template). check finds the first bad
// keyword in sorted order before gonja binds, with gonja's own message,
// and runs no macro body.
type macroSig struct {
	name   string
	params []string
	kwargs bool // the macro takes **kwargs
}

func sigOf(m *nodes.Macro) *macroSig {
	sig := &macroSig{name: m.Name, kwargs: m.KwArgsName != ""}
	for _, p := range m.Kwargs {
		s, ok := p.Key.(*nodes.String)
		if !ok {
			return nil
		}
		sig.params = append(sig.params, s.Val)
	}
	return sig
}

func (s *macroSig) check(params *exec.VarArgs) error {
	for _, k := range slices.Sorted(maps.Keys(params.KwArgs)) {
		i := slices.Index(s.params, k)
		switch {
		case i >= 0 && i < len(params.Args):
			return exec.ErrInvalidCall(fmt.Errorf("macro '%s' received '%s' argument twice", s.name, k))
		case i < 0 && !s.kwargs:
			return exec.ErrInvalidCall(fmt.Errorf("macro '%s' takes no keyword argument '%s'", s.name, k))
		}
	}
	return nil
}

// guardName replaces the macro stored under name in the context with a
// guarded one.
// sig gives the signature of a macro by its name in its file (nil: not
// known).
func guardName(ctx *exec.Context, name string, sig func(macro string) *macroSig) {
	v, ok := ctx.Get(name)
	if !ok {
		return
	}
	switch fn := v.(type) {
	case exec.Macro:
		ctx.Set(name, guardMacro(name, fn, sig(name)))
	case map[string]exec.Macro: // {% import 'x' as name %}
		guarded := make(map[string]exec.Macro, len(fn))
		for k, m := range fn {
			guarded[k] = guardMacro(name+"."+k, m, sig(k))
		}
		ctx.Set(name, guarded)
	}
}

// macroStmt is gonja's macro statement with a guarded macro.
type macroStmt struct {
	*controlStructures.MacroControlStructure
}

func (s *macroStmt) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	if err := s.MacroControlStructure.Execute(r, tag); err != nil {
		return err
	}
	sig := sigOf(s.Macro)
	guardName(r.Environment.Context, s.Name, func(string) *macroSig { return sig })
	return nil
}

// importStmt is gonja's import or from statement with guarded macros.
type importStmt struct {
	exec.ControlStructure
	names []string          // the names the statement defines
	file  nodes.Expression  // the imported file
	from  map[string]string // from-import: alias -> macro name
}

// importedSigs returns the signatures of the macros of the imported file
// by macro name; nil when the file cannot be read here (gonja's import has
// already failed then, or read it through another loader).
func (s *importStmt) importedSigs(r *exec.Renderer) map[string]*macroSig {
	l, ok := r.Loader.(*rootedLoader)
	if !ok || s.file == nil {
		return nil
	}
	v := r.Eval(s.file)
	if v.IsError() {
		return nil
	}
	clean, ok := templateName(v.String())
	if !ok {
		return nil
	}
	t, err := l.env.parseCached(clean)
	if err != nil || t == nil {
		return nil
	}
	sigs := map[string]*macroSig{}
	for name, m := range t.Macros() {
		sigs[name] = sigOf(m)
	}
	return sigs
}

func (s *importStmt) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	if err := s.ControlStructure.Execute(r, tag); err != nil {
		return err
	}
	sigs := s.importedSigs(r)
	for _, n := range s.names {
		guardName(r.Environment.Context, n, func(macro string) *macroSig {
			if orig, ok := s.from[macro]; ok {
				macro = orig
			}
			return sigs[macro]
		})
	}
	return nil
}

// wrapParsers returns the parsers of the statements that need a guard.
func wrapParsers(cs *exec.ControlStructureSet) map[string]parserFunc {
	orig := func(name string) parserFunc {
		p, ok := cs.Get(name)
		if !ok {
			panic(fmt.Sprintf("jinja: gonja has no %s statement", name))
		}
		return p
	}
	macro, imp, from, extends, forLoop := orig("macro"), orig("import"), orig("from"), orig("extends"), orig("for")
	return map[string]parserFunc{
		"macro": func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
			n, err := macro(p, args)
			if m, ok := n.(*controlStructures.MacroControlStructure); ok && err == nil {
				return &macroStmt{m}, nil
			}
			return n, err
		},
		"import": func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
			n, err := imp(p, args)
			if c, ok := n.(*controlStructures.ImportControlStructure); ok && err == nil {
				// The alias and the file are unexported fields; reflect can
				// read them.
				rv := reflect.ValueOf(c).Elem()
				if f := rv.FieldByName("as"); f.IsValid() && f.Kind() == reflect.String {
					st := &importStmt{ControlStructure: c, names: []string{f.String()}}
					if fe := rv.FieldByName("filenameExpression"); fe.IsValid() && fe.CanAddr() {
						if e, ok := reflect.NewAt(fe.Type(), unsafe.Pointer(fe.UnsafeAddr())).Elem().Interface().(nodes.Expression); ok {
							st.file = e
						}
					}
					return st, nil
				}
			}
			return n, err
		},
		"from": func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
			n, err := from(p, args)
			if c, ok := n.(*controlStructures.FromImportControlStructure); ok && err == nil {
				names := make([]string, 0, len(c.As))
				for alias := range c.As {
					names = append(names, alias)
				}
				return &importStmt{ControlStructure: c, names: names, file: c.FilenameExpression, from: c.As}, nil
			}
			return n, err
		},
		"for": func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
			// gonja's loop(...) of a recursive loop has no place for a
			// depth guard, and an endless one kills the process.
			loc := args.Current()
			n, err := forLoop(p, args)
			if c, ok := n.(*controlStructures.ForControlStructure); ok && err == nil && c.Recursive {
				return nil, &parser.SyntaxError{Message: "recursive for loops are not supported: gonja cannot stop an endless one", Line: loc.Line, Column: loc.Col}
			}
			return n, err
		},
		"extends": func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
			// gonja reads the parent while it parses, so a cycle recurses
			// in the parser: count the Go stack frames.
			var pc [1]uintptr
			if runtime.Callers(maxParseFrames, pc[:]) > 0 {
				return nil, errors.New("extends nests too deep: does a template extend itself?")
			}
			return extends(p, args)
		},
	}
}

// rangeFunc is Jinja2's range as a list. gonja's range feeds a channel from
// a goroutine, which stays blocked for ever when the loop stops early (an
// error, or a range that is printed rather than looped over).
func rangeFunc(params *exec.VarArgs) *exec.Value {
	ints := make([]int, 0, 3)
	for _, a := range params.Args {
		if !a.IsInteger() {
			return exec.AsValue(exec.ErrInvalidCall(fmt.Errorf("range() takes integers, not %s", a.String())))
		}
		ints = append(ints, a.Integer())
	}
	if len(params.KwArgs) > 0 {
		return exec.AsValue(exec.ErrInvalidCall(errors.New("range() takes no keyword arguments")))
	}
	start, stop, step := 0, 0, 1
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	default:
		return exec.AsValue(exec.ErrInvalidCall(fmt.Errorf("range expected 1 to 3 arguments, got %d", len(ints))))
	}
	if step == 0 {
		return exec.AsValue(exec.ErrInvalidCall(errors.New("range() arg 3 must not be zero")))
	}
	n := 0
	if step > 0 && start < stop {
		n = (stop - start + step - 1) / step
	} else if step < 0 && start > stop {
		n = (start - stop - step - 1) / -step
	}
	if n > maxRange {
		return exec.AsValue(fmt.Errorf("range() of %d numbers is more than the %d this tool allows", n, maxRange))
	}
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return exec.AsValue(out)
}

// maxRange bounds range(), which makes a list, unlike Jinja2's lazy range.
const maxRange = 1_000_000

// byteSize writes n bytes as "8 MiB", "512 KiB" or "100 bytes".
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// maxOutputKey holds the render's output limit in its context; templates
// cannot name it.
const maxOutputKey = "\x00max output"

// widthGuard wraps a filter whose integer argument (the first positional
// one, or the keyword kw) sets the length of its result: center(2000000000)
// would make a string of 2 GB before the output limit could see it.
func widthGuard(name, kw string, fn exec.FilterFunction) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
		width := params.KwArgs[kw]
		if len(params.Args) > 0 {
			width = params.Args[0]
		}
		if width != nil && width.IsInteger() && e != nil && e.Environment != nil {
			if v, ok := e.Environment.Context.Get(maxOutputKey); ok {
				if limit, ok := v.(int); ok && width.Integer() > limit {
					return exec.AsValue(fmt.Errorf("%s(%d) would make more than the %s of output that limits.render_output allows", name, width.Integer(), byteSize(limit)))
				}
			}
		}
		return fn(e, in, params)
	}
}
