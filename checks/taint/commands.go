package taint

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
				w.st.vals[name] = []string{w.literal(a.Value)}
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
// the script). It is long (about 145 lines) on purpose: one switch case
// per builtin that changes the walk's state, each a few lines that read
// the same w fields; the lead edits the taint walk, so it stays whole here.
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
				w.st.vals[a.Name.Value] = []string{w.literal(a.Value)}
			}
		}
		return
	}
	name := w.literal(c.Args[0])
	lits := make([]string, len(c.Args))
	for i, a := range c.Args {
		lits[i] = w.literal(a)
	}
	// The program that runs: git in "git diff", "command git diff" or
	// "timeout 60 git diff".
	at := commandAt(lits)
	isGit := at < len(lits) && path.Base(lits[at]) == "git"
	argOs := make([]origins, len(c.Args))
	argsO := w.collect(func() {
		for i, a := range c.Args {
			reason, line := "", int(a.Pos().Line())
			switch {
			case isGit && i > at:
				reason = ReasonGit
			case i > 0 && baseOption(lits[i-1]), baseOption(strings.SplitN(lits[i], "=", 2)[0]) && strings.Contains(lits[i], "="):
				reason = ReasonBase
			}
			argOs[i] = w.collect(func() {
				if reason != "" {
					w.withReason(reason, line, func() { w.word(a) })
				} else {
					w.word(a)
				}
			})
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
			if w.agentWritable(p) && !w.st.made[path.Clean(p)] {
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
	case "tee":
		if slices.Contains(args, "-a") || slices.Contains(args, "--append") {
			return
		}
		for i, a := range args {
			if !strings.HasPrefix(a, "-") {
				w.made(c.Args[1+i])
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
		// What they read comes from stdin: a here-string, a here-document,
		// a file or the pipeline before them.
		for i, a := range args {
			if syntax.ValidName(a) && (i == 0 || !takesValue(name, args[i-1])) {
				w.assign(a, argsO.union(w.stdin))
			}
		}
	case "shift":
		n := 1
		if len(args) > 0 {
			if v, err := strconv.Atoi(args[0]); err == nil && v >= 0 {
				n = v
			} else {
				n = -1
			}
		}
		w.shift(n)
	case "set":
		if len(args) > 0 && args[0] == "--" && w.positional != nil {
			w.positional.args = slices.Clone(argOs[2:])
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
		w.runFunc(name, prefix, argOs[1:])
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

// wrappers are programs that run the rest of their arguments as a command,
// with how many arguments that are not options come before the command
// (timeout's duration).
var wrappers = map[string]int{"command": 0, "exec": 0, "env": 0, "nice": 0, "nohup": 0, "setsid": 0, "stdbuf": 0, "sudo": 0, "timeout": 1, "xargs": 0}

// wrapperValues are the options of the wrappers that take the next
// argument as their value.
var wrapperValues = map[string][]string{
	"env": {"-u", "-C", "-S"}, "nice": {"-n"}, "stdbuf": {"-i", "-o", "-e"}, "timeout": {"-s", "-k"},
	"sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-U"}, "xargs": {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"},
}

// commandAt returns the index of the program a command line runs, past the
// wrappers (command, env, timeout ...), their options and env's NAME=VALUE
// arguments; len(args) when there is none.
func commandAt(args []string) int {
	i := 0
	for i < len(args) {
		w := path.Base(args[i])
		plain, ok := wrappers[w]
		if !ok {
			return i
		}
		i++
	opts:
		for i < len(args) {
			a := args[i]
			switch {
			case a == "--":
				i++
				break opts
			case strings.HasPrefix(a, "-") && len(a) > 1:
				if slices.Contains(wrapperValues[w], a) {
					i++
				}
				i++
			case w == "env" && strings.Contains(a, "="):
				i++
			case plain > 0:
				plain--
				i++
			default:
				break opts
			}
		}
	}
	return i
}
