package taint

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// read records a read of name: when it is not covered, a use (with what
// the value carries); in any case, what it carries goes to the sinks.
func (w *walker) read(name string, line int, withDefault bool) {
	if !syntax.ValidName(name) || dynamic[name] {
		return
	}
	w.names[name] = true
	if w.st.dead {
		return
	}
	o := w.st.status(name)
	for _, s := range w.sinks {
		*s = s.union(o)
	}
	if len(o) == 0 {
		return
	}
	u := w.use(KindVariable, name, line)
	direct := slices.Contains(o, name)
	u.Direct = u.Direct || direct
	for _, n := range o {
		if n != name && !slices.Contains(u.From, n) {
			u.From = append(u.From, n)
			slices.Sort(u.From)
		}
	}
	reason, rline := w.reason, w.reasonLine
	if withDefault && direct && reason == "" {
		reason, rline = ReasonDefault, line
	}
	if reason == "" {
		return
	}
	if direct {
		u.protect(reason, rline, "")
	}
	// A derived value passes the reason on to the names it carries.
	for _, n := range o {
		if n == name {
			continue
		}
		r, ok := w.uses["v:"+n]
		if !ok {
			r = w.use(KindVariable, n, line)
		}
		r.Direct = true
		r.protect(reason, rline, name)
	}
}

// protect gives the use a reason to be protected: the first one, or a git,
// base or file reason over a default (it says more).
func (u *Use) protect(reason string, line int, via string) {
	if u.Reason == "" || u.Reason == ReasonDefault && reason != ReasonDefault {
		u.Reason, u.ReasonLine, u.ReasonVia = reason, line, via
	}
}

// use returns the use of name, made at line if it is new.
func (w *walker) use(kind, name string, line int) *Use {
	k := kind[:1] + ":" + name
	u, ok := w.uses[k]
	if !ok {
		u = &Use{Name: name, Kind: kind, Line: line, SourceLine: w.st.src.Line, Source: w.st.src.Path}
		w.uses[k] = u
	} else if line < u.Line {
		u.Line = line
	}
	return u
}

// assign gives name a value that carries o and what the branch depends on.
func (w *walker) assign(name string, o origins) {
	w.names[name] = true
	w.st.assign(name, o.union(w.pc))
	delete(w.vals, name)
}

// word records the reads (and the commands of substitutions) of a word,
// in order.
func (w *walker) word(x *syntax.Word) {
	if x == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			w.paramExp(n)
			return false
		case *syntax.CmdSubst:
			w.subshell(func() { w.stmts(n.Stmts) })
			return false
		case *syntax.ProcSubst:
			w.subshell(func() { w.stmts(n.Stmts) })
			return false
		case *syntax.ArithmExp:
			w.arithm(n.X)
			return false
		}
		return true
	})
}

func (w *walker) paramExp(p *syntax.ParamExp) {
	var op syntax.ParExpOperator
	if p.Exp != nil {
		op = p.Exp.Op
	}
	withDefault := op == syntax.DefaultUnset || op == syntax.DefaultUnsetOrNull || op == syntax.AssignUnset || op == syntax.AssignUnsetOrNull
	if p.Param != nil {
		w.read(p.Param.Value, int(p.Pos().Line()), withDefault)
	}
	if p.Index != nil {
		w.arithm(p.Index)
	}
	if p.Slice != nil {
		w.arithm(p.Slice.Offset)
		w.arithm(p.Slice.Length)
	}
	if p.Repl != nil {
		w.word(p.Repl.Orig)
		w.word(p.Repl.With)
	}
	if p.Exp != nil {
		o := w.collect(func() { w.word(p.Exp.Word) })
		if (op == syntax.AssignUnset || op == syntax.AssignUnsetOrNull) && p.Param != nil && !w.st.dead {
			// ${X:=v} keeps X when set, else gives it v.
			w.assign(p.Param.Value, w.st.status(p.Param.Value).union(o))
		}
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

// arithm records the names an arithmetic expression reads, and assigns
// those it assigns with what their values carry.
func (w *walker) arithm(x syntax.ArithmExpr) {
	switch n := x.(type) {
	case nil:
	case *syntax.BinaryArithm:
		if l := lone(n.X); l != nil && isAssign(n.Op) {
			o := w.collect(func() {
				if n.Op != syntax.Assgn {
					w.read(l.Value, int(l.Pos().Line()), false)
				}
				w.arithm(n.Y)
			})
			w.assign(l.Value, o)
			return
		}
		w.arithm(n.X)
		w.arithm(n.Y)
	case *syntax.UnaryArithm:
		if l := lone(n.X); l != nil && (n.Op == syntax.Inc || n.Op == syntax.Dec) {
			o := w.collect(func() { w.read(l.Value, int(l.Pos().Line()), false) })
			w.assign(l.Value, o)
			return
		}
		w.arithm(n.X)
	case *syntax.ParenArithm:
		w.arithm(n.X)
	case *syntax.Word:
		if l := lone(n); l != nil {
			w.read(l.Value, int(l.Pos().Line()), false)
			return
		}
		w.word(n)
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

// decl walks declare, local, export, readonly and typeset. A name with a
// value is assigned; local (and declare or typeset in a function, without
// -g) makes it local, with no value an empty one; a bare export passes
// the value to every child program, so it counts as a read.
func (w *walker) decl(c *syntax.DeclClause) {
	variant := c.Variant.Value
	readonly := variant == "readonly"
	global := false
	functions := false
	for _, a := range c.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			opt := w.literal(a.Value)
			if strings.HasPrefix(opt, "-") {
				readonly = readonly || strings.Contains(opt, "r")
				global = global || strings.Contains(opt, "g")
				functions = functions || strings.ContainsAny(opt, "fFp")
				continue
			}
			w.word(a.Value)
		}
	}
	if functions {
		return
	}
	local := variant == "local" || (variant == "declare" || variant == "typeset") && !global && len(w.frames) > 0
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		line := int(a.Name.Pos().Line())
		o := w.collect(func() {
			w.word(a.Value)
			if a.Array != nil {
				for _, e := range a.Array.Elems {
					w.word(e.Value)
				}
			}
		})
		if local {
			w.local(name)
		}
		switch {
		case !a.Naked || local || a.Array != nil:
			if a.Append {
				o = o.union(w.st.status(name))
			}
			w.assign(name, o)
			if !a.Naked && a.Array == nil {
				w.vals[name] = []string{w.literal(a.Value)}
			}
		case variant == "export":
			w.read(name, line, false)
		default:
			w.names[name] = true
		}
		if readonly {
			w.st.readonly(name)
		}
	}
}

// call walks a simple command: its assignments and words, then what the
// command does to the state (source, unset, read, a jump, a function of
// the script).
func (w *walker) call(c *syntax.CallExpr) {
	prefix := map[string]origins{}
	for _, a := range c.Assigns {
		o := w.collect(func() {
			w.word(a.Value)
			if a.Array != nil {
				for _, e := range a.Array.Elems {
					w.word(e.Value)
				}
			}
			if a.Index != nil {
				w.arithm(a.Index)
			}
		})
		if a.Name != nil {
			if a.Append || a.Index != nil {
				o = o.union(w.st.status(a.Name.Value))
			}
			prefix[a.Name.Value] = o.union(w.pc)
		}
	}
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			if a.Name == nil {
				continue
			}
			w.assign(a.Name.Value, prefix[a.Name.Value])
			if a.Value != nil && a.Array == nil && a.Index == nil && !a.Append {
				w.vals[a.Name.Value] = []string{w.literal(a.Value)}
			}
		}
		return
	}
	name := w.literal(c.Args[0])
	isGit := path.Base(name) == "git"
	argsO := w.collect(func() {
		for i, a := range c.Args {
			reason, line := "", int(a.Pos().Line())
			switch {
			case isGit && i > 0:
				reason = ReasonGit
			case i > 0 && baseOption(w.literal(c.Args[i-1])), baseOption(strings.SplitN(w.literal(a), "=", 2)[0]) && strings.Contains(w.literal(a), "="):
				reason = ReasonBase
			}
			if reason != "" {
				w.withReason(reason, line, func() { w.word(a) })
			} else {
				w.word(a)
			}
		}
	})
	line := int(c.Args[0].Pos().Line())
	if name == "" || strings.Contains(name, "?") && name != "?" || len(name) > 100 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return
	}
	w.command(name, line)
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
				at := SourceAt{Line: line, Path: p}
				w.nSources++
				if !w.st.dead {
					w.st.source(at)
					if len(w.sources) == 0 || w.sources[len(w.sources)-1] != at {
						w.sources = append(w.sources, at)
					}
				}
				break
			}
		}
	case "unset":
		for _, a := range args {
			switch {
			case a == "-f":
				return // functions: a later call runs what the script defined, or nothing
			case !syntax.ValidName(a):
			case w.isLocal(a):
				// bash may then show a caller's value.
				w.st.forget(a)
			default:
				w.assign(a, nil)
			}
		}
	case "read", "mapfile", "readarray":
		for i, a := range args {
			if syntax.ValidName(a) && (i == 0 || !takesValue(name, args[i-1])) {
				w.assign(a, argsO)
			}
		}
	case "printf":
		if len(args) > 1 && args[0] == "-v" && syntax.ValidName(args[1]) {
			w.assign(args[1], argsO)
		}
	case "break", "continue", "return":
		n := 1
		if len(args) > 0 && name != "return" {
			if v, err := strconv.Atoi(args[0]); err == nil && v > 0 {
				n = v
			}
		}
		w.jump(name, n)
	case "exit":
		w.jump(name, 0)
	case "exec":
		if len(args) > 0 {
			w.jump("exit", 0)
		}
	}
	if _, ok := w.funcs[name]; ok {
		w.runFunc(name, prefix)
	}
}

// command records a use of a command that a sourced file could shadow with
// a function, and of PATH where PATH finds it.
func (w *walker) command(name string, line int) {
	if w.st.dead || !w.st.sourced || strings.Contains(name, "/") || w.st.funcs[name] {
		return
	}
	w.use(KindCommand, name, line)
	if _, fn := w.funcs[name]; fn || builtins[name] {
		return
	}
	if o := w.st.status("PATH"); len(o) > 0 {
		u := w.use(KindVariable, "PATH", line)
		u.Direct = u.Direct || slices.Contains(o, "PATH")
	}
}
