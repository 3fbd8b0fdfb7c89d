package taint

import (
	"maps"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker follows a script's statements in order, with a state per point:
// branches meet in a join, loops run until their state settles, function
// bodies run at each call with the caller's state, and subshells,
// command substitutions and pipeline parts leave the caller's state as it
// was.
type walker struct {
	writable []string
	st       *state
	funcs    map[string]*syntax.Stmt // the last definition of each function
	inCall   map[string]bool
	inlined  map[string]int
	names    map[string]bool
	// sinks collect what the reads under way carry: an assignment's value,
	// a condition.
	sinks []*origins
	// pc is what the branch being walked depends on: an assignment in it
	// carries that too (the agent chooses which value it gets).
	pc origins
	// stdin is what the standard input of the statement being walked
	// carries: its input redirections, or the pipeline part before it.
	stdin origins
	// positional are the arguments of the function call being walked.
	positional *positional
	// reason and reasonLine mark the reads of the word being walked as
	// protected (a git argument, a --base value, a redirection's file).
	reason     string
	reasonLine int
	loops      []*loopFrame
	frames     []*funcFrame
	uses       map[string]*Use
	sources    []SourceAt
	nSources   int // sources walked so far, on any path
	steps      int
	overflow   bool
	// own are the names the script assigns itself somewhere: a read of
	// one with a default is the script's own fallback, not a value it
	// expects from outside (ReasonDefault).
	own map[string]bool
}

type loopFrame struct{ breaks, continues []*state }

type funcFrame struct {
	entry   *state
	locals  []string
	returns []*state
}

// newWalker starts a walk; sourced starts it as if a source just ran.
func newWalker(writable []string, sourced bool) *walker {
	w := &walker{writable: writable, st: newState(), funcs: map[string]*syntax.Stmt{}, inCall: map[string]bool{}, inlined: map[string]int{},
		names: map[string]bool{}, uses: map[string]*Use{}}
	if sourced {
		w.st.source(SourceAt{Path: "?"})
	}
	return w
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
	if w.steps++; w.steps > maxSteps {
		w.overflow = true
		return
	}
	if s.Background || s.Coprocess {
		// What a job in the background writes may land after the
		// statements that follow it.
		made := maps.Clone(w.st.made)
		w.subshell(func() { w.stmtIn(s) })
		w.st.made = made
		return
	}
	w.stmtIn(s)
}

func (w *walker) stmtIn(s *syntax.Stmt) {
	// Redirections are expanded before the command runs.
	stdin := w.stdin
	for _, r := range s.Redirs {
		o := w.collect(func() {
			switch r.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrIn, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
				w.withReason(ReasonPath, int(r.Pos().Line()), func() { w.word(r.Word) })
			default:
				w.word(r.Word)
			}
			w.word(r.Hdoc)
		})
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			stdin = o
		}
	}
	saved := w.stdin
	w.stdin = stdin
	w.cmd(s.Cmd)
	w.stdin = saved
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll:
			w.made(r.Word)
		}
	}
}

// made records that the statement wrote the file x names anew, when x
// names one file the script knows.
func (w *walker) made(x *syntax.Word) {
	if x == nil || w.st.dead {
		return
	}
	ps := w.paths(x)
	if len(ps) != 1 || !strings.HasPrefix(ps[0], "/") || strings.ContainsAny(ps[0], "?*[") {
		return
	}
	w.st.made[path.Clean(ps[0])] = true
}

// subshell walks f in a copy of the state and drops what it changed,
// but for the files it wrote: they are written all the same.
func (w *walker) subshell(f func()) {
	saved := w.st.clone()
	loops, frames := w.loops, w.frames
	w.loops, w.frames = nil, nil
	f()
	if !w.st.dead {
		for p := range w.st.made {
			saved.made[p] = true
		}
	}
	w.st = saved
	w.loops, w.frames = loops, frames
}

// collect walks f and returns what its reads carry.
func (w *walker) collect(f func()) origins {
	var o origins
	w.sinks = append(w.sinks, &o)
	f()
	w.sinks = w.sinks[:len(w.sinks)-1]
	return o
}

// under walks f with the branch depending on o.
func (w *walker) under(o origins, f func()) {
	saved := w.pc
	w.pc = w.pc.union(o)
	f()
	w.pc = saved
}

func (w *walker) withReason(reason string, line int, f func()) {
	saved, savedLine := w.reason, w.reasonLine
	w.reason, w.reasonLine = reason, line
	f()
	w.reason, w.reasonLine = saved, savedLine
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
		w.subshell(func() { w.stmts(c.Stmts) })
	case *syntax.BinaryCmd:
		w.binary(c)
	case *syntax.IfClause:
		w.ifClause(c)
	case *syntax.WhileClause:
		var cond origins
		w.loop(func() { cond = w.collect(func() { w.stmts(c.Cond) }) }, func() { w.under(cond, func() { w.stmts(c.Do) }) }, true, endless(c))
	case *syntax.ForClause:
		w.forClause(c)
	case *syntax.CaseClause:
		w.caseClause(c)
	case *syntax.FuncDecl:
		if c.Name != nil {
			w.funcs[c.Name.Value] = c.Body
			if !w.st.dead {
				w.st.funcs[c.Name.Value] = true
			}
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
		w.subshell(func() { w.stmt(c.Stmt) })
	}
}

func (w *walker) binary(c *syntax.BinaryCmd) {
	switch c.Op {
	case syntax.AndStmt, syntax.OrStmt:
		// Y runs or not, depending on X.
		cond := w.collect(func() { w.stmt(c.X) })
		afterX := w.st.clone()
		w.under(cond, func() { w.stmt(c.Y) })
		w.st = join(afterX, w.st)
	default:
		// Each part of a pipeline runs in a subshell; what the first
		// part reads may reach the second on its standard input.
		out := w.collect(func() { w.subshell(func() { w.stmt(c.X) }) })
		saved := w.stdin
		w.stdin = out
		w.subshell(func() { w.stmt(c.Y) })
		w.stdin = saved
	}
}

func (w *walker) ifClause(c *syntax.IfClause) {
	var outs []*state
	savedPC := w.pc
	done := false
	for ic := c; ic != nil && !done; ic = ic.Else {
		if !ic.ThenPos.IsValid() { // else
			w.stmts(ic.Then)
			outs = append(outs, w.st)
			done = true
			break
		}
		cond := w.collect(func() { w.stmts(ic.Cond) })
		w.pc = w.pc.union(cond)
		afterCond := w.st.clone()
		w.stmts(ic.Then)
		outs = append(outs, w.st)
		w.st = afterCond
	}
	if !done {
		outs = append(outs, w.st)
	}
	w.pc = savedPC
	w.st = joinAll(outs[0], outs[1:]...)
}

// loop walks a loop: cond (for a while loop, run before each pass and once
// more at the end; for a for loop, the assignment of the loop variable)
// and body, which may run zero or more times, until the state at the top
// settles. After a few passes the state at the top forgets every
// assignment since the source, which is always safe. An endless loop
// (while true) ends only at a break.
func (w *walker) loop(cond, body func(), condAtExit, endless bool) {
	frame := &loopFrame{}
	w.loops = append(w.loops, frame)
	entry := w.st.clone()
	head := entry
	var exit *state
	for pass := 0; ; pass++ {
		frame.breaks, frame.continues = nil, nil
		w.st = head.clone()
		cond()
		afterCond := w.st.clone()
		body()
		next := joinAll(entry, append(frame.continues, w.st)...)
		if condAtExit {
			exit = afterCond
		} else {
			exit = join(head, next)
		}
		if endless {
			exit = exit.clone()
			exit.dead = true
		}
		grown := join(head, next)
		if same(grown, head) || w.overflow {
			break
		}
		head = grown
		if pass == 4 {
			head.vars = map[string]origins{}
			head.funcs = map[string]bool{}
			head.vals = map[string][]string{}
		}
	}
	w.loops = w.loops[:len(w.loops)-1]
	w.st = joinAll(exit, frame.breaks...)
}

func (w *walker) forClause(c *syntax.ForClause) {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		var items []string
		o := w.collect(func() {
			for _, it := range l.Items {
				w.word(it)
				items = append(items, w.literal(it))
			}
		})
		name := l.Name.Value
		w.names[name] = true
		w.st.vals[name] = items
		w.loop(func() { w.st.assign(name, o.union(w.pc)) }, func() { w.under(o, func() { w.stmts(c.Do) }) }, false, false)
	case *syntax.CStyleLoop:
		w.arithm(l.Init)
		var cond origins
		w.loop(func() { cond = w.collect(func() { w.arithm(l.Cond) }) }, func() {
			w.under(cond, func() {
				w.stmts(c.Do)
				w.arithm(l.Post)
			})
		}, true, l.Cond == nil)
	}
}

func (w *walker) caseClause(c *syntax.CaseClause) {
	o := w.collect(func() { w.word(c.Word) })
	entry := w.st.clone()
	var outs []*state
	catchAll := false
	var prev *state
	w.under(o, func() {
		for _, it := range c.Items {
			w.st = entry.clone()
			if prev != nil {
				w.st = join(entry, prev) // ;& and ;;& run on into this item
			}
			for _, p := range it.Patterns {
				w.word(p)
				catchAll = catchAll || w.literal(p) == "*"
			}
			w.stmts(it.Stmts)
			outs = append(outs, w.st)
			prev = nil
			if it.Op == syntax.Fallthrough || it.Op == syntax.Resume {
				prev = w.st
			}
		}
	})
	if !catchAll {
		outs = append(outs, entry)
	}
	w.st = joinAll(outs[0], outs[1:]...)
}

// jump ends the path at break, continue, return or exit.
func (w *walker) jump(kind string, n int) {
	if w.st.dead {
		return
	}
	switch kind {
	case "break", "continue":
		if len(w.loops) == 0 {
			return
		}
		f := w.loops[max(0, len(w.loops)-n)]
		if kind == "break" {
			f.breaks = append(f.breaks, w.st.clone())
		} else {
			f.continues = append(f.continues, w.st.clone())
		}
	case "return":
		if len(w.frames) > 0 {
			f := w.frames[len(w.frames)-1]
			f.returns = append(f.returns, w.st.clone())
		}
	}
	w.st.dead = true
}

// endless reports whether a while or until loop's condition is the
// literal command that never ends it: while : or true, until false.
func endless(c *syntax.WhileClause) bool {
	if len(c.Cond) != 1 {
		return false
	}
	s := c.Cond[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || len(s.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) != 1 {
		return false
	}
	switch call.Args[0].Lit() {
	case ":", "true":
		return !c.Until
	case "false":
		return c.Until
	}
	return false
}
