package taint

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
	"mvdan.cc/sh/v3/syntax"
)

// Kinds of a use.
const (
	KindVariable = "variable"
	KindCommand  = "command"
)

// Use is one name a script uses after sourcing a file the agent can write,
// which that file could have changed: a variable read that no assignment
// after the source (and no readonly before it) protects, or a command
// that a function defined in the file could shadow (or that PATH finds).
type Use struct {
	Name       string
	Kind       string
	Line       int // the first such use
	SourceLine int // the source that taints it
	Source     string
}

// Analysis is what Analyze found in one script.
type Analysis struct {
	// Sources are the sources of agent-writable files, in order.
	Sources []SourceAt
	// Uses lists each tainted name once (variables first, by line).
	Uses []Use
	// Names are every variable name the script mentions (read or set),
	// for the tamper run's hostile files.
	Names []string
}

// SourceAt is one source or . of an agent-writable path.
type SourceAt struct {
	Line int
	Path string // as resolved, "?" when unknown
}

type evKind int

const (
	evSource evKind = iota
	evAssign
	evReadonly
	evRead
	evCall
	evFunc
)

type event struct {
	kind evKind
	name string
	line int
	path string
}

// maxEvents bounds the events of one script (function bodies are inlined
// at their calls).
const maxEvents = 200_000

type walker struct {
	writable []string
	events   []event
	funcs    map[string]*syntax.Stmt
	inCall   map[string]bool
	inlined  map[string]int
	vals     map[string][]string // literal values of variables, for source paths
	names    map[string]bool
	overflow bool
}

// Analyze parses a rendered bash script and lists the names its sources of
// agent-writable files taint. writable holds the globs of absolute paths
// the agent can write; a relative path, or one the analysis cannot work
// out, counts as writable.
func Analyze(script string, writable []string) (*Analysis, error) {
	// The parser and the walker recurse once per level of nesting: a
	// rendered script of a few megabytes of "$(" overflows the Go stack,
	// which kills the process (no recover catches it).
	if d := nestingDepth(script, MaxNesting); d > MaxNesting {
		return nil, fmt.Errorf("the script nests more than %d levels deep (brackets, braces and compound commands counted, quotes not); it was not parsed", MaxNesting)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	w := &walker{writable: writable, funcs: map[string]*syntax.Stmt{}, inCall: map[string]bool{}, inlined: map[string]int{},
		vals: map[string][]string{}, names: map[string]bool{}}
	w.stmts(f.Stmts)
	a := w.result()
	if w.overflow {
		return a, fmt.Errorf("the script makes more than %d events (function bodies are followed at each call); the rest was not analysed", maxEvents)
	}
	return a, nil
}

func (w *walker) emit(e event) {
	if len(w.events) >= maxEvents {
		w.overflow = true
		return
	}
	w.events = append(w.events, e)
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	if s == nil || w.overflow {
		return
	}
	w.cmd(s.Cmd)
	for _, r := range s.Redirs {
		w.word(r.Word)
		w.word(r.Hdoc)
	}
}

func (w *walker) cmd(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.DeclClause:
		w.decl(c)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.BinaryCmd:
		w.stmt(c.X)
		w.stmt(c.Y)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond)
			w.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			var items []string
			for _, it := range l.Items {
				w.word(it)
				items = append(items, w.literal(it))
			}
			w.assign(l.Name.Value, int(l.Name.Pos().Line()))
			w.vals[l.Name.Value] = items
		case *syntax.CStyleLoop:
			w.arithm(l.Init)
			w.arithm(l.Cond)
			w.arithm(l.Post)
		}
		w.stmts(c.Do)
	case *syntax.CaseClause:
		w.word(c.Word)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				w.word(p)
			}
			w.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		if c.Name != nil {
			w.funcs[c.Name.Value] = c.Body
			w.emit(event{kind: evFunc, name: c.Name.Value, line: int(c.Pos().Line())})
		}
	case *syntax.ArithmCmd:
		w.arithm(c.X)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			w.arithm(x)
		}
	case *syntax.TestClause:
		w.test(c.X)
	case *syntax.TimeClause:
		w.stmt(c.Stmt)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt)
	}
}

func (w *walker) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		w.word(x)
	case *syntax.BinaryTest:
		w.test(x.X)
		w.test(x.Y)
	case *syntax.UnaryTest:
		w.test(x.X)
	case *syntax.ParenTest:
		w.test(x.X)
	}
}

func (w *walker) assign(name string, line int) {
	w.names[name] = true
	w.emit(event{kind: evAssign, name: name, line: line})
	delete(w.vals, name)
}

func (w *walker) read(name string, line int) {
	if !syntax.ValidName(name) || dynamic[name] {
		return
	}
	w.names[name] = true
	w.emit(event{kind: evRead, name: name, line: line})
}

// dynamic are bash variables whose value bash sets itself at each use.
var dynamic = map[string]bool{"RANDOM": true, "SRANDOM": true, "SECONDS": true, "EPOCHSECONDS": true, "EPOCHREALTIME": true,
	"BASHPID": true, "LINENO": true, "PPID": true, "BASH_COMMAND": true, "FUNCNAME": true, "BASH_SOURCE": true, "BASH_LINENO": true, "PIPESTATUS": true}

// word records the reads (and the commands of substitutions) of a word,
// in order.
func (w *walker) word(x *syntax.Word) {
	if x == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Param != nil {
				w.read(n.Param.Value, int(n.Pos().Line()))
			}
			return true
		case *syntax.CmdSubst:
			w.stmts(n.Stmts)
			return false
		case *syntax.ProcSubst:
			w.stmts(n.Stmts)
			return false
		case *syntax.ArithmExp:
			w.arithm(n.X)
			return false
		}
		return true
	})
}

// arithm records the names an arithmetic expression reads, then those it
// assigns.
func (w *walker) arithm(x syntax.ArithmExpr) {
	if x == nil {
		return
	}
	var assigned []*syntax.Lit
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			if isAssign(n.Op) {
				if l := lone(n.X); l != nil {
					if n.Op != syntax.Assgn {
						w.read(l.Value, int(l.Pos().Line()))
					}
					assigned = append(assigned, l)
					w.arithm(n.Y)
					return false
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if l := lone(n.X); l != nil {
					w.read(l.Value, int(l.Pos().Line()))
					assigned = append(assigned, l)
					return false
				}
			}
		case *syntax.Word:
			if l := lone(n); l != nil {
				w.read(l.Value, int(l.Pos().Line()))
				return false
			}
			w.word(n)
			return false
		}
		return true
	})
	for _, l := range assigned {
		w.assign(l.Value, int(l.Pos().Line()))
	}
}

// isAssign reports whether op assigns (=, +=, <<= ...).
func isAssign(op syntax.BinAritOperator) bool {
	s := op.String()
	return strings.HasSuffix(s, "=") && s != "==" && s != "!=" && s != "<=" && s != ">="
}

// lone returns the literal of a word that is one literal name.
func lone(x syntax.ArithmExpr) *syntax.Lit {
	wd, ok := x.(*syntax.Word)
	if !ok || len(wd.Parts) != 1 {
		return nil
	}
	l, ok := wd.Parts[0].(*syntax.Lit)
	if !ok || !syntax.ValidName(l.Value) {
		return nil
	}
	return l
}

func (w *walker) decl(c *syntax.DeclClause) {
	variant := c.Variant.Value
	readonly := variant == "readonly"
	local := variant == "local"
	functions := false
	for _, a := range c.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			opt := w.literal(a.Value)
			if strings.HasPrefix(opt, "-") {
				readonly = readonly || strings.Contains(opt, "r")
				functions = functions || strings.Contains(opt, "f") || strings.Contains(opt, "p")
				continue
			}
			w.word(a.Value)
		}
	}
	if functions {
		return
	}
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		line := int(a.Name.Pos().Line())
		w.word(a.Value)
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				w.word(e.Value)
			}
		}
		if !a.Naked || local || a.Array != nil {
			w.assign(a.Name.Value, line)
			if !a.Naked && a.Array == nil {
				w.vals[a.Name.Value] = []string{w.literal(a.Value)}
			}
		}
		if readonly {
			w.names[a.Name.Value] = true
			w.emit(event{kind: evReadonly, name: a.Name.Value, line: line})
		}
	}
}

func (w *walker) call(c *syntax.CallExpr) {
	for _, a := range c.Assigns {
		w.word(a.Value)
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				w.word(e.Value)
			}
		}
	}
	for _, a := range c.Args {
		w.word(a)
	}
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			if a.Name == nil {
				continue
			}
			w.assign(a.Name.Value, int(a.Name.Pos().Line()))
			if a.Value != nil && a.Array == nil && a.Index == nil && !a.Append {
				w.vals[a.Name.Value] = []string{w.literal(a.Value)}
			}
		}
		return
	}
	name := w.literal(c.Args[0])
	line := int(c.Args[0].Pos().Line())
	if name == "" || strings.Contains(name, "?") && name != "?" || len(name) > 100 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return
	}
	w.emit(event{kind: evCall, name: name, line: line})
	args := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		args = append(args, w.literal(a))
	}
	switch name {
	case "source", ".":
		if len(c.Args) < 2 {
			return
		}
		for _, p := range w.paths(c.Args[1]) {
			if w.agentWritable(p) {
				w.emit(event{kind: evSource, line: line, path: p})
				break
			}
		}
	case "unset":
		if slices.Contains(args, "-f") {
			return
		}
		for _, a := range args {
			if syntax.ValidName(a) {
				w.assign(a, line)
			}
		}
	case "read", "mapfile", "readarray":
		for i, a := range args {
			if syntax.ValidName(a) && (i == 0 || !takesValue(name, args[i-1])) {
				w.assign(a, line)
			}
		}
	case "printf":
		if len(args) > 1 && args[0] == "-v" && syntax.ValidName(args[1]) {
			w.assign(args[1], line)
		}
	}
	// A function of the script runs here: follow its body (each function at
	// most a few times, never into itself).
	if body, ok := w.funcs[name]; ok && !w.inCall[name] && w.inlined[name] < 8 {
		w.inCall[name] = true
		w.inlined[name]++
		w.stmt(body)
		w.inCall[name] = false
	}
}

// takesValue reports whether the option opt of read or mapfile takes the
// next argument as its value.
func takesValue(cmd, opt string) bool {
	if !strings.HasPrefix(opt, "-") || len(opt) < 2 {
		return false
	}
	last := opt[len(opt)-1:]
	if cmd == "read" {
		return strings.Contains("adinNpt", last) && last != "" && !strings.Contains(opt[1:len(opt)-1], "=")
	}
	return strings.Contains("dnOsuC c", last)
}

// literal returns the text of a word when it has no expansion, with
// quotes removed; "?" marks an expansion it could not follow.
func (w *walker) literal(x *syntax.Word) string {
	if x == nil {
		return ""
	}
	var b strings.Builder
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q)
			}
		default:
			b.WriteString("?")
		}
	}
	for _, p := range x.Parts {
		part(p)
	}
	return b.String()
}

// paths returns the paths a source argument can name: its literal text,
// or the known values of the one variable it expands. "?" is unknown.
func (w *walker) paths(x *syntax.Word) []string {
	var outs = []string{""}
	var part func(p syntax.WordPart) bool
	part = func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			for i := range outs {
				outs[i] += p.Value
			}
		case *syntax.SglQuoted:
			for i := range outs {
				outs[i] += p.Value
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !part(q) {
					return false
				}
			}
		case *syntax.ParamExp:
			vals, ok := w.vals[nameOf(p)]
			if !ok || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Excl || p.Length {
				return false
			}
			var next []string
			for _, o := range outs {
				for _, v := range vals {
					next = append(next, o+v)
				}
			}
			outs = next
		default:
			return false
		}
		return true
	}
	for _, p := range x.Parts {
		if !part(p) {
			return []string{"?"}
		}
	}
	return outs
}

func nameOf(p *syntax.ParamExp) string {
	if p.Param == nil {
		return ""
	}
	return p.Param.Value
}

// agentWritable reports whether the agent can write the file p (a path,
// possibly a glob): a relative or unknown path counts as writable.
func (w *walker) agentWritable(p string) bool {
	if p == "" || strings.Contains(p, "?") || !strings.HasPrefix(p, "/") {
		return true
	}
	p = path.Clean(p)
	for _, g := range w.writable {
		if config.MatchGlob(g, p) {
			return true
		}
	}
	return false
}

// result turns the events into uses: for each read or call after a
// tainting source, the name is tainted unless an assignment (or, for a
// command, a function definition) comes between the last such source and
// the use, or the variable was made readonly before it (and was clean
// then).
func (w *walker) result() *Analysis {
	a := &Analysis{}
	for n := range w.names {
		a.Names = append(a.Names, n)
	}
	slices.Sort(a.Names)
	lastAssign := map[string]int{} // event index
	readonlyAt := map[string]int{} // event index of the first readonly
	cleanAtRO := map[string]bool{} // whether it was clean when made readonly
	funcAt := map[string]int{}     // event index of the last definition
	lastSource, lastSourceIdx := -1, -1
	var src SourceAt
	seen := map[string]bool{}
	tainted := func(name string, i int) bool {
		if lastSource < 0 {
			return false
		}
		if ro, ok := readonlyAt[name]; ok && ro < i {
			return !cleanAtRO[name]
		}
		if as, ok := lastAssign[name]; ok && as > lastSourceIdx {
			return false
		}
		return true
	}
	pathNeeded := false
	for i, e := range w.events {
		switch e.kind {
		case evSource:
			lastSource, lastSourceIdx = e.line, i
			src = SourceAt{Line: e.line, Path: e.path}
			if len(a.Sources) == 0 || a.Sources[len(a.Sources)-1] != src {
				a.Sources = append(a.Sources, src)
			}
		case evAssign:
			if _, ro := readonlyAt[e.name]; !ro {
				lastAssign[e.name] = i
			}
		case evReadonly:
			if _, ok := readonlyAt[e.name]; !ok {
				cleanAtRO[e.name] = !tainted(e.name, i)
				if as, ok := lastAssign[e.name]; ok && as == i-1 {
					cleanAtRO[e.name] = true // readonly X=value
				}
				readonlyAt[e.name] = i
			}
		case evFunc:
			funcAt[e.name] = i
		case evRead:
			if tainted(e.name, i) && !seen["v:"+e.name] {
				seen["v:"+e.name] = true
				a.Uses = append(a.Uses, Use{Name: e.name, Kind: KindVariable, Line: e.line, SourceLine: src.Line, Source: src.Path})
			}
		case evCall:
			if lastSource < 0 || strings.Contains(e.name, "/") {
				continue
			}
			if fi, ok := funcAt[e.name]; ok && fi > lastSourceIdx {
				continue // the script's own function, defined after the source
			}
			if !seen["c:"+e.name] {
				seen["c:"+e.name] = true
				a.Uses = append(a.Uses, Use{Name: e.name, Kind: KindCommand, Line: e.line, SourceLine: src.Line, Source: src.Path})
			}
			if _, fn := funcAt[e.name]; !fn && !builtins[e.name] && !pathNeeded && tainted("PATH", i) {
				pathNeeded = true
				a.Uses = append(a.Uses, Use{Name: "PATH", Kind: KindVariable, Line: e.line, SourceLine: src.Line, Source: src.Path})
			}
		}
	}
	slices.SortStableFunc(a.Uses, func(x, y Use) int {
		if x.Kind != y.Kind {
			return strings.Compare(y.Kind, x.Kind) // variables first
		}
		return x.Line - y.Line
	})
	return a
}

// builtins are bash's builtin commands: PATH does not find them, but a
// function can still shadow them.
var builtins = map[string]bool{}

func init() {
	for _, b := range strings.Fields(`. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait`) {
		builtins[b] = true
	}
}

// MaxNesting is the deepest nesting Analyze parses.
const MaxNesting = 1000

// nestingDepth estimates how deep a script nests: each opening bracket,
// brace or parenthesis and each compound-command keyword (if, while,
// until, for, case, select) opens a level, and the closing ones close it.
// Quotes are not understood, so the estimate is never below the real
// depth of brackets. It stops counting past limit.
func nestingDepth(script string, limit int) int {
	depth, maxDepth := 0, 0
	word := strings.Builder{}
	endWord := func() {
		switch word.String() {
		case "if", "while", "until", "for", "case", "select":
			depth++
		case "fi", "done", "esac":
			if depth > 0 {
				depth--
			}
		}
		word.Reset()
	}
	for i := 0; i < len(script) && maxDepth <= limit; i++ {
		c := script[i]
		switch {
		case c == '(' || c == '{' || c == '[':
			endWord()
			depth++
		case c == ')' || c == '}' || c == ']':
			endWord()
			if depth > 0 {
				depth--
			}
		case c >= 'a' && c <= 'z':
			if word.Len() < 8 {
				word.WriteByte(c)
			} else {
				word.WriteByte('_')
			}
		default:
			endWord()
		}
		maxDepth = max(maxDepth, depth)
	}
	endWord()
	return max(maxDepth, depth)
}
