package taint

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// read records a read of name: when it is not covered, a use (with what
// the value carries); in any case, what it carries goes to the sinks.
func (w *walker) read(name string, line int, withDefault bool) {
	if !syntax.ValidName(name) {
		w.readParam(name, line)
		return
	}
	if dynamic[name] {
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
	if withDefault && direct && reason == "" && !w.own[name] {
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

// readParam records a read of a positional parameter of the function being
// walked: it carries what the call's argument carries, to the sinks and,
// under a reason, to the names the argument carries.
func (w *walker) readParam(p string, line int) {
	if w.st.dead {
		return
	}
	o := w.param(p)
	if len(o) == 0 {
		return
	}
	for _, s := range w.sinks {
		*s = s.union(o)
	}
	if w.reason == "" {
		return
	}
	for _, n := range o {
		r, ok := w.uses["v:"+n]
		if !ok {
			r = w.use(KindVariable, n, line)
		}
		r.Direct = true
		r.protect(w.reason, w.reasonLine, "$"+p)
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
	delete(w.st.vals, name)
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

// assignedNames returns the names the script assigns on some path: a
// plain or declared assignment, a for loop's name, and the names read,
// mapfile, readarray and printf -v fill.
func assignedNames(f *syntax.File) map[string]bool {
	own := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil {
				own[x.Name.Value] = true
			}
		case *syntax.WordIter:
			if x.Name != nil {
				own[x.Name.Value] = true
			}
		case *syntax.CallExpr:
			if len(x.Args) < 2 {
				break
			}
			switch x.Args[0].Lit() {
			case "read", "mapfile", "readarray":
				for _, a := range x.Args[1:] {
					if l := a.Lit(); syntax.ValidName(l) {
						own[l] = true
					}
				}
			case "printf":
				for i, a := range x.Args[1 : len(x.Args)-1] {
					if a.Lit() == "-v" {
						if l := x.Args[i+2].Lit(); syntax.ValidName(l) {
							own[l] = true
						}
					}
				}
			}
		}
		return true
	})
	return own
}
