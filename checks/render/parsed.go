// A template parsed once and rendered for each variable set, within the kept-output budget.

package render

import (
	"context"
	"errors"
	"fmt"
	"path"
	"unicode/utf8"

	"github.com/formula-code/template-verify/internal/jinja"
)

type parsed struct {
	env  *jinja.Env
	name string
	err  error
}

func parse(e *jinja.Env, name string) *parsed {
	if src, ok := e.Source(name); ok && !utf8.ValidString(src) {
		line, col := invalidUTF8At(src)
		return &parsed{env: e, name: name, err: &jinja.Error{
			File: path.Join(e.Root(), name), Line: line,
			Msg: fmt.Sprintf("the file is not valid UTF-8 (first bad byte at line %d, column %d); Jinja2 cannot load it", line, col),
		}}
	}
	return &parsed{env: e, name: name}
}

// invalidUTF8At returns the 1-based line and byte column of the first byte
// that is not valid UTF-8.
func invalidUTF8At(s string) (line, col int) {
	line, start := 1, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return line, i - start + 1
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += size
	}
	return line, 0
}

// MaxKeptOutput is the most rendered output one run keeps in memory (for
// the diff, bash -n and the Jinja2 cross-check): each render may write up
// to limits.render_output, for every variable set of every template.
const MaxKeptOutput = 64 << 20

type keptBudget struct{ n, max int }

func (p *parsed) render(ctx context.Context, r *jinja.Renderer, vars map[string]any, kept *keptBudget) side {
	s := side{env: p.env, name: p.name}
	if p.err != nil {
		s.err = p.err
		return s
	}
	full := &jinja.Error{File: path.Join(p.env.Root(), p.name), Stopped: true, Msg: fmt.Sprintf(
		"not rendered: the outputs of this change passed %s in all, the most one run keeps", sizeText(kept.max))}
	if kept.n > kept.max {
		s.err = full
		return s
	}
	s.output, s.err = r.Render(ctx, p.env, p.name, vars)
	if kept.n += len(s.output); kept.n > kept.max {
		s.output, s.err = "", full
	}
	// A render stopped by a limit would stop again for the next variable
	// set: a loop that runs past the time limit for 64 sets would hold the
	// check for 64 limits.
	var je *jinja.Error
	if errors.As(s.err, &je) && je.Stopped {
		p.err = s.err
	}
	return s
}
