// What the step assigns (variables, arrays) and the files it writes itself, the values a grep's patterns are read from.

package restore

import (
	"errors"
	"io"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// values is what the script assigns, read in script order (the last
// assignment wins; += appends). It is an expand.Environ in which a name
// the script never gives a value expands to "$name", so that two words
// that name the same unknown file compare equal.
type values map[string]expand.Variable

func (v values) Get(name string) expand.Variable {
	if vr, ok := v[name]; ok {
		return vr
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: "$" + name}
}

func (v values) Each(fn func(string, expand.Variable) bool) {
	for k, vr := range v {
		if !fn(k, vr) {
			return
		}
	}
}

// expandConfig expands words statically: command and process
// substitutions become their source text, nothing is globbed.
func expandConfig(env expand.Environ) *expand.Config {
	return &expand.Config{
		Env: env,
		CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
			_, err := io.WriteString(w, "$(...)")
			return err
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "<(...)", nil },
	}
}

// collectValues reads the literal values the script assigns to variables
// and arrays, in script order, into x.env. A value past the reader's
// limits stops it with errValueLimit.
func (x *expander) collectValues(file *syntax.File) error {
	env := x.env
	var stop error
	syntax.Walk(file, func(n syntax.Node) bool {
		a, ok := n.(*syntax.Assign)
		if stop != nil || !ok || a.Name == nil || a.Index != nil {
			return stop == nil
		}
		name := a.Name.Value
		switch {
		case a.Array != nil:
			var list []string
			size := 0
			if a.Append {
				list = slices.Clone(env.Get(name).List)
				size = varSize(env.Get(name))
			}
			for _, el := range a.Array.Elems {
				if el.Value == nil {
					continue
				}
				fields, err := x.fields(el.Value)
				if err != nil {
					if errors.Is(err, errValueLimit) {
						stop = err
					}
					return stop == nil
				}
				list = append(list, fields...)
				for _, f := range fields {
					size = sat(size, len(f)+elemSize)
				}
				if size > maxValueBytes {
					stop = limitErr(a, "the array "+name, size)
					return false
				}
			}
			env[name] = expand.Variable{Set: true, Kind: expand.Indexed, List: list}
		case a.Value != nil:
			s, err := x.literal(a.Value)
			if err != nil {
				if errors.Is(err, errValueLimit) {
					stop = err
				}
				return stop == nil
			}
			if a.Append {
				if old, ok := env[name]; ok {
					s = old.Str + s
				}
			}
			if len(s) > maxValueBytes {
				stop = limitErr(a, "the variable "+name, len(s))
				return false
			}
			env[name] = expand.Variable{Set: true, Kind: expand.String, Str: s}
		}
		return true
	})
	return stop
}

// collectFileWrites maps each file the script writes with printf, echo or
// a here-document (by its expanded name) to the lines written to it.
func (x *expander) collectFileWrites(file *syntax.File) (map[string][]string, error) {
	out := map[string][]string{}
	sizes := map[string]int{}
	var stop error
	syntax.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if stop != nil || !ok {
			return stop == nil
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var target string
		var hdoc *syntax.Word
		appendTo := false
		for _, r := range st.Redirs {
			switch r.Op {
			case syntax.RdrOut, syntax.RdrClob, syntax.AppOut:
				if r.Word != nil {
					s, err := x.literal(r.Word)
					if errors.Is(err, errValueLimit) {
						stop = err
						return false
					}
					if err == nil {
						target, appendTo = s, r.Op == syntax.AppOut
					}
				}
			case syntax.Hdoc, syntax.DashHdoc:
				hdoc = r.Hdoc
			}
		}
		if target == "" {
			return true
		}
		args, err := x.fields(call.Args...)
		if errors.Is(err, errValueLimit) {
			stop = err
			return false
		}
		if err != nil || len(args) == 0 {
			return true // a command of words that expand to nothing
		}
		var lines []string
		switch args[0] {
		case "printf":
			if len(args) >= 2 && (args[1] == `%s\n` || args[1] == "%s\n") {
				lines = args[2:]
			}
		case "echo":
			if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
				lines = []string{strings.Join(args[1:], " ")}
			}
		case "cat":
			if hdoc != nil && len(args) == 1 {
				body, err := x.document(hdoc)
				if errors.Is(err, errValueLimit) {
					stop = err
					return false
				}
				if err == nil {
					lines = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
				}
			}
		}
		if lines == nil {
			return true
		}
		size := 0
		for _, l := range lines {
			size = sat(size, len(l)+elemSize)
		}
		if appendTo {
			size = sat(size, sizes[target])
			out[target] = append(out[target], lines...)
		} else {
			out[target] = lines
		}
		sizes[target] = size
		if size > maxValueBytes {
			stop = limitErr(st, "the lines written to "+target, size)
			return false
		}
		return true
	})
	return out, stop
}
