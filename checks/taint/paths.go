package taint

import (
	"path"
	"strings"

	"github.com/formula-code/template-verify/config"
	"mvdan.cc/sh/v3/syntax"
)

// baseOption reports whether an option's name says it takes the base or
// the baseline (--base, --base-commit, --baseline-sha).
func baseOption(opt string) bool {
	o := strings.TrimLeft(opt, "-")
	return len(opt) > len(o) && (o == "base" || o == "baseline" || strings.HasPrefix(o, "base-") || strings.HasPrefix(o, "base_") || strings.HasPrefix(o, "baseline-") || strings.HasPrefix(o, "baseline_"))
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
			// A value the sourced file may have set is unknown.
			vals, ok := w.st.vals[nameOf(p)]
			if !ok || len(w.st.status(nameOf(p))) > 0 || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Excl || p.Length {
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
