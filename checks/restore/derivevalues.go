// What the step assigns (variables, arrays) and the files it writes itself, the values a grep's patterns are read from.

package restore

import (
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
// and arrays, in script order.
func collectValues(file *syntax.File) values {
	env := values{}
	cfg := expandConfig(env)
	syntax.Walk(file, func(n syntax.Node) bool {
		a, ok := n.(*syntax.Assign)
		if !ok || a.Name == nil || a.Index != nil {
			return true
		}
		name := a.Name.Value
		switch {
		case a.Array != nil:
			var list []string
			if a.Append {
				list = slices.Clone(env.Get(name).List)
			}
			for _, el := range a.Array.Elems {
				if el.Value == nil {
					continue
				}
				fields, err := expand.Fields(cfg, el.Value)
				if err != nil {
					return true
				}
				list = append(list, fields...)
			}
			env[name] = expand.Variable{Set: true, Kind: expand.Indexed, List: list}
		case a.Value != nil:
			s, err := expand.Literal(cfg, a.Value)
			if err != nil {
				return true
			}
			if a.Append {
				if old, ok := env[name]; ok {
					s = old.Str + s
				}
			}
			env[name] = expand.Variable{Set: true, Kind: expand.String, Str: s}
		}
		return true
	})
	return env
}

// collectFileWrites maps each file the script writes with printf, echo or
// a here-document (by its expanded name) to the lines written to it.
func collectFileWrites(file *syntax.File, env values) map[string][]string {
	cfg := expandConfig(env)
	out := map[string][]string{}
	syntax.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
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
					if s, err := expand.Literal(cfg, r.Word); err == nil {
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
		args, err := expand.Fields(cfg, call.Args...)
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
				if body, err := expand.Document(cfg, hdoc); err == nil {
					lines = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
				}
			}
		}
		if lines == nil {
			return true
		}
		if appendTo {
			out[target] = append(out[target], lines...)
		} else {
			out[target] = lines
		}
		return true
	})
	return out
}
