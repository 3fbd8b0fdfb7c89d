package restore

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/internal/shparse"
)

// StepPolicy is the pattern list that a rendered restore step matches
// changed paths against, read from the step's own text.
type StepPolicy struct {
	// Patterns are Go regular expressions on slash paths, in the step's
	// order, each once.
	Patterns []string
	// Raw are the patterns as the step writes them, in the same order.
	Raw []string
	// Command is the grep command line the patterns come from, and Line
	// its line in the script that was read (1-based).
	Command string
	Line    int
}

// errNoPatternList says that the step has no grep that matches the
// changed paths against a list, so the policy cannot be read from it.
var errNoPatternList = errors.New("the step has no grep command that reads the changed paths from git")

// ReadStepPolicy reads the restore policy from a rendered shell step with
// mvdan.cc/sh: the patterns of the grep commands that filter the output
// of git (git diff --name-only, git ls-files, git status) in a pipeline
// or through a process substitution. A pattern comes from -e words, the
// first operand, a bash array spliced into the command ("${list[@]}"), a
// variable, or a -f file that the step writes itself (printf, echo or a
// here-document). Basic, extended, fixed and Perl patterns and the -i, -x
// and -w options become Go regular expressions. The script is never run.
//
// When several such greps exist, the policy is the union of their
// patterns. A grep with -v (it keeps the paths that do not match) cannot
// be read as a list of protected paths and is an error.
func ReadStepPolicy(script string) (sp StepPolicy, err error) {
	// The script is the PR's: a shape the reader did not foresee is an
	// error that names it, never a crash of the check.
	defer func() {
		if r := recover(); r != nil {
			sp, err = StepPolicy{}, fmt.Errorf("the step's pattern list cannot be read: %v", r)
		}
	}()
	file, err := shparse.Parse(script)
	if err != nil {
		return StepPolicy{}, fmt.Errorf("the step does not parse as bash: %w", err)
	}
	x := newExpander()
	if err := x.collectValues(file); err != nil {
		return StepPolicy{}, err
	}
	writes, err := x.collectFileWrites(file)
	if err != nil {
		return StepPolicy{}, err
	}
	var greps []*syntax.CallExpr
	fed := map[*syntax.CallExpr]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch c := n.(type) {
		case *syntax.CallExpr:
			if isGrep(c) {
				greps = append(greps, c)
			}
		case *syntax.BinaryCmd:
			if (c.Op == syntax.Pipe || c.Op == syntax.PipeAll) && callsGit(c.X) {
				for _, g := range grepsIn(c.Y) {
					fed[g] = true
				}
			}
		case *syntax.Stmt:
			// grep ... < <(git diff ...)
			if call, ok := c.Cmd.(*syntax.CallExpr); ok && isGrep(call) {
				for _, r := range c.Redirs {
					if r.Word != nil && callsGit(r.Word) {
						fed[call] = true
					}
				}
			}
		}
		return true
	})
	var picked []*syntax.CallExpr
	for _, g := range greps {
		if fed[g] {
			picked = append(picked, g)
		}
	}
	if len(picked) == 0 {
		return StepPolicy{}, errNoPatternList
	}
	var cmds []string
	for _, g := range picked {
		raw, mode, err := grepPatterns(g, x, writes)
		if err != nil {
			return StepPolicy{}, fmt.Errorf("line %d: %w", g.Pos().Line(), err)
		}
		if len(raw) == 0 || mode.counts {
			continue
		}
		if sp.Line == 0 {
			sp.Line = int(g.Pos().Line())
		}
		cmds = append(cmds, nodeText(script, g))
		for _, p := range raw {
			re, err := mode.goRegexp(p)
			if err != nil {
				return StepPolicy{}, fmt.Errorf("line %d: pattern %q: %w", g.Pos().Line(), p, err)
			}
			if !slices.Contains(sp.Patterns, re) {
				if len(sp.Patterns) == maxPatterns {
					return StepPolicy{}, fmt.Errorf("line %d: the step gives more than %d patterns, past the reader's limit: %w", g.Pos().Line(), maxPatterns, errValueLimit)
				}
				sp.Patterns = append(sp.Patterns, re)
				sp.Raw = append(sp.Raw, p)
			}
		}
	}
	if len(sp.Patterns) == 0 {
		return StepPolicy{}, fmt.Errorf("line %d: the grep that reads the changed paths has no pattern the step gives as a value", picked[0].Pos().Line())
	}
	sp.Command = strings.Join(cmds, "; ")
	return sp, nil
}

// nodeText is the text of node n in script, on one line.
func nodeText(script string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(script) || s > e {
		return ""
	}
	return strings.Join(strings.Fields(script[s:e]), " ")
}

func isGrep(c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return false
	}
	switch c.Args[0].Lit() {
	case "grep", "egrep", "fgrep":
		return true
	}
	return false
}

// callsGit reports whether n runs git anywhere inside it.
func callsGit(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == "git" {
			found = true
		}
		return !found
	})
	return found
}

func grepsIn(n syntax.Node) []*syntax.CallExpr {
	var out []*syntax.CallExpr
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && isGrep(c) {
			out = append(out, c)
		}
		return true
	})
	return out
}
