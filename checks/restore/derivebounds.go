// Bounds on the values the step reader computes: a step that doubles a
// variable (x=$x$x) or an array (a+=("${a[@]}")) forty times would make
// values of a terabyte.

package restore

import (
	"errors"
	"fmt"
	"math"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxValueBytes bounds one expanded word and one value the reader
	// keeps (a variable, an array, the lines written to one file). An
	// array element or a line counts its bytes and elemSize more.
	maxValueBytes = 1 << 20
	// maxReadBytes bounds all that the reader expands in one step.
	maxReadBytes = 16 << 20
	// maxPatterns bounds the patterns read from one step: each becomes
	// a Go regular expression and candidate paths for the probe.
	maxPatterns = 500
)

// StepMemory is the address space of each process of a restore step
// (sandbox.Spec.MaxMemory). A step runs bash, git and grep; a grep -E -f
// of 2,000 generated patterns took 1.1 GB and 15 minutes without it.
const StepMemory = 1 << 30

// errValueLimit says that the step's values grow past the reader's
// limits. The policy reader then reads no list from the step.
var errValueLimit = errors.New("the step's values grow past the reader's limit")

// expander expands the step's words statically (see expandConfig), each
// only after a bound of its size is within the limits.
type expander struct {
	env   values
	cfg   *expand.Config
	spent int
}

func newExpander() *expander {
	env := values{}
	return &expander{env: env, cfg: expandConfig(env)}
}

// limitErr is errValueLimit for node n.
func limitErr(n syntax.Node, what string, size int) error {
	return fmt.Errorf("line %d: %s would have %s, past %d KiB: %w", n.Pos().Line(), what, sizeText(size), maxValueBytes>>10, errValueLimit)
}

func sizeText(n int) string {
	if n >= math.MaxInt/4 {
		return "more bytes than the machine holds"
	}
	return fmt.Sprintf("%d bytes or more", n)
}

// spend checks a bound and charges it to the step.
func (x *expander) spend(n syntax.Node, what string, bound int) error {
	if bound > maxValueBytes {
		return limitErr(n, what, bound)
	}
	if x.spent+bound > maxReadBytes {
		return fmt.Errorf("line %d: the values the step computes pass %d MiB in all: %w", n.Pos().Line(), maxReadBytes>>20, errValueLimit)
	}
	x.spent += bound
	return nil
}

func (x *expander) literal(w *syntax.Word) (string, error) {
	if err := x.spend(w, "a word", x.wordBound(w)); err != nil {
		return "", err
	}
	return expand.Literal(x.cfg, w)
}

func (x *expander) fields(ws ...*syntax.Word) ([]string, error) {
	bound := 0
	for _, w := range ws {
		bound = sat(bound, x.wordBound(w))
	}
	if len(ws) > 0 {
		if err := x.spend(ws[0], "the words of a command", bound); err != nil {
			return nil, err
		}
	}
	return expand.Fields(x.cfg, ws...)
}

func (x *expander) document(w *syntax.Word) (string, error) {
	if err := x.spend(w, "a here-document", x.wordBound(w)); err != nil {
		return "", err
	}
	return expand.Document(x.cfg, w)
}

// sat adds without overflow.
func sat(a, b int) int {
	if a > math.MaxInt/4-b || b > math.MaxInt/4 {
		return math.MaxInt / 4
	}
	return a + b
}

// mul multiplies without overflow.
func mul(a, b int) int {
	if a != 0 && b > (math.MaxInt/4)/a {
		return math.MaxInt / 4
	}
	return a * b
}

// elemSize is what an array element costs beyond its bytes: the Go
// string header.
const elemSize = 16

// varSize is the size of a value: a string's bytes, an array's bytes
// and elemSize more per element.
func varSize(v expand.Variable) int {
	n := len(v.Str)
	for _, e := range v.List {
		n = sat(n, len(e)+elemSize)
	}
	for k, e := range v.Map {
		n = sat(n, len(k)+len(e)+2*elemSize)
	}
	return n
}

// allSize bounds any one variable (for ${!name} and ${!prefix*}).
func (x *expander) allSize() int {
	n := 0
	for k, v := range x.env {
		n = sat(n, len(k)+1+varSize(v))
	}
	return n
}

// wordBound is an upper bound of the bytes that w expands to, read from
// the variables' sizes without expanding anything.
func (x *expander) wordBound(w *syntax.Word) int {
	if w == nil {
		return 0
	}
	return x.partsBound(w.Parts)
}

func (x *expander) partsBound(parts []syntax.WordPart) int {
	n := 0
	for _, p := range parts {
		n = sat(n, x.partBound(p))
	}
	return n
}

func (x *expander) partBound(p syntax.WordPart) int {
	switch p := p.(type) {
	case *syntax.Lit:
		return len(p.Value)
	case *syntax.SglQuoted:
		return len(p.Value)
	case *syntax.DblQuoted:
		return x.partsBound(p.Parts)
	case *syntax.ParamExp:
		return x.paramBound(p)
	case *syntax.ExtGlob:
		if p.Pattern != nil {
			return len(p.Pattern.Value) + 3
		}
		return 3
	case *syntax.CmdSubst, *syntax.ProcSubst:
		return len("$(...)")
	case *syntax.ArithmExp:
		return 24
	}
	// A part this bound does not know: treat it as past every limit.
	return math.MaxInt / 4
}

func (x *expander) paramBound(pe *syntax.ParamExp) int {
	if pe.Length || pe.Width {
		return 24
	}
	base := 0
	switch {
	case pe.Excl || pe.Names != 0:
		base = x.allSize()
	case pe.Param != nil:
		base = varSize(x.env.Get(pe.Param.Value))
	}
	// Operators that quote (@Q) may write each byte as four.
	n := mul(base, 4)
	if pe.Exp != nil {
		n = sat(n, x.wordBound(pe.Exp.Word))
	}
	if pe.Repl != nil {
		// Every byte may be replaced by the replacement.
		with := x.wordBound(pe.Repl.With)
		n = sat(n, mul(base, with+1))
		n = sat(n, with)
	}
	return sat(n, 2)
}
