package taint

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// runFunc walks the body of the script's function name at a call: the
// body starts from the caller's state (plus the call's own assignments,
// which end with the call, as local variables do). Each function runs at
// most a few times per walk and never into itself; past that, the call
// forgets every assignment since the source, which is always safe.
func (w *walker) runFunc(name string, prefix map[string]origins, args []origins) {
	body := w.funcs[name]
	if w.inCall[name] || w.inlined[name] >= maxCalls {
		// Not followed: the call may assign anything and, if the body
		// sources a file, source it.
		if !w.st.dead {
			w.st.vars = map[string]origins{}
			w.st.funcs = map[string]bool{}
			if sourcesAFile(body) && !w.st.sourced {
				w.st.source(SourceAt{Line: int(body.Pos().Line()), Path: "?"})
			}
		}
		return
	}
	w.inCall[name] = true
	w.inlined[name]++
	frame := &funcFrame{entry: w.st.clone()}
	w.frames = append(w.frames, frame)
	for n, o := range prefix {
		frame.locals = append(frame.locals, n)
		w.st.assign(n, o)
	}
	before := w.nSources
	loops, pos := w.loops, w.positional
	w.loops, w.positional = nil, &positional{args: args}
	w.stmt(body)
	w.loops, w.positional = loops, pos
	w.st = joinAll(w.st, frame.returns...)
	w.frames = w.frames[:len(w.frames)-1]
	w.inCall[name] = false
	if w.st.dead {
		return
	}
	// Local variables get the caller's values back. When the body ran a
	// source, the caller's value may be the sourced file's.
	for _, n := range frame.locals {
		switch o, ok := frame.entry.vars[n]; {
		case w.nSources != before || !frame.entry.sourced && w.st.sourced:
			w.st.forget(n)
		case ok:
			w.st.assign(n, o)
		default:
			w.st.forget(n)
		}
	}
}

// maxCalls is how many calls of one function a walk follows.
const maxCalls = 256

// sourcesAFile reports whether a function body holds a source or . command.
func sourcesAFile(body *syntax.Stmt) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if l := c.Args[0].Lit(); l == "source" || l == "." {
				found = true
			}
		}
		return !found
	})
	return found
}

// local declares name local to the function being walked.
func (w *walker) local(name string) {
	if len(w.frames) > 0 {
		f := w.frames[len(w.frames)-1]
		f.locals = append(f.locals, name)
	}
}

// isLocal reports whether name is local to a function being walked.
func (w *walker) isLocal(name string) bool {
	for _, f := range w.frames {
		for _, n := range f.locals {
			if n == name {
				return true
			}
		}
	}
	return false
}

// positional are the arguments of the function call being walked, with
// what each carries; unknown after a shift by an amount the walk cannot
// tell, when every parameter carries what any argument carries.
type positional struct {
	args    []origins
	unknown bool
}

// param returns what the positional parameter p ("1", "@", "*") carries
// in the function being walked; nil outside a function and for a number
// past the arguments.
func (w *walker) param(p string) origins {
	pos := w.positional
	if pos == nil {
		return nil
	}
	var all origins
	for _, o := range pos.args {
		all = all.union(o)
	}
	if p == "@" || p == "*" || pos.unknown {
		return all
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > len(pos.args) {
		return nil
	}
	return pos.args[n-1]
}

// shift drops the first n positional parameters; n < 0 is an amount the
// walk cannot tell.
func (w *walker) shift(n int) {
	pos := w.positional
	switch {
	case pos == nil:
	case n < 0:
		pos.unknown = true
	case n >= len(pos.args):
		pos.args = nil
	default:
		pos.args = pos.args[n:]
	}
}
