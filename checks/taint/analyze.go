package taint

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/internal/shparse"
)

// Kinds of a use.
const (
	KindVariable = "variable"
	KindCommand  = "command"
)

// Why a variable read is protected without taint.protect naming it.
const (
	// ReasonDefault: the script reads the name with a default
	// (${X:-…}, ${X-…}, ${X:=…}, ${X=…}), so it expects the value from
	// outside: the harness's environment, which a profile file can forge.
	ReasonDefault = "default"
	// ReasonGit: the value is an argument of git, where it can choose the
	// revision (the diff base, the baseline).
	ReasonGit = "git"
	// ReasonBase: the value follows an option such as --base or
	// --base-commit of any program.
	ReasonBase = "base option"
	// ReasonPath: the value names a file that a redirection writes or
	// reads (a report or a grading input).
	ReasonPath = "file path"
)

// Use is one name a script uses after sourcing a file the agent can write,
// which that file could have changed: a variable read that no assignment
// after the source covers on every path (and that was not readonly and
// covered before it), or a command that a function defined in the file
// could shadow (or that PATH finds).
type Use struct {
	Name       string
	Kind       string
	Line       int // the first such use, a line of the rendered script
	SourceLine int // the source that taints it
	Source     string
	// From lists the other names whose agent-set values the variable
	// carries (FC_BASE from FC_BASELINE_SHA); empty when it carries only
	// its own.
	From []string
	// Direct: on some path the sourced file sets the name itself.
	Direct bool
	// Reason says why the read is protected without taint.protect (one of
	// the Reason constants), ReasonLine where; "" when it is not. A
	// derived name passes its reason to the names in From.
	Reason     string
	ReasonLine int
	ReasonVia  string // the derived name through which the reason came
}

// Analysis is what Analyze found in one script.
type Analysis struct {
	// Sources are the sources of agent-writable files, in order.
	Sources []SourceAt
	// Uses lists each tainted name once (variables first, by line).
	Uses []Use
	// Names are every variable name the script mentions (read or set),
	// for the tamper run's hostile files.
	Names []string
}

// SourceAt is one source or . of an agent-writable path.
type SourceAt struct {
	Line int
	Path string // as resolved, "?" when unknown
}

// maxSteps bounds the work on one script: statements walked, with
// function bodies walked at each call and loop bodies until their state
// settles.
const maxSteps = 200_000

// Analyze parses a rendered bash script and lists the names its sources of
// agent-writable files taint. writable holds the globs of absolute paths
// the agent can write; a relative path, or one the analysis cannot work
// out, counts as writable.
func Analyze(script string, writable []string) (*Analysis, error) {
	return AnalyzeOwn(script, writable, nil)
}

// AnalyzeOwn is Analyze where the names of own also count as the
// script's own: names other renders of the same template assign (the
// assignment may sit in a Jinja branch this render left out).
func AnalyzeOwn(script string, writable []string, own map[string]bool) (*Analysis, error) {
	f, err := parse(script)
	if err != nil {
		return nil, err
	}
	w := newWalker(writable, false)
	w.own = assignedNames(f)
	for n := range own {
		w.own[n] = true
	}
	w.stmts(f.Stmts)
	a := w.result()
	if w.overflow {
		return a, fmt.Errorf("the analysis took more than %d steps (function bodies are followed at each call); the rest was not analysed", maxSteps)
	}
	return a, nil
}

// uncoveredReads lists the variables a script part reads that no
// assignment in it covers first, as if a source ran just before it.
func uncoveredReads(part string) ([]string, error) {
	f, err := parse(part)
	if err != nil {
		return nil, err
	}
	w := newWalker(nil, true)
	w.stmts(f.Stmts)
	var out []string
	for _, u := range w.result().Uses {
		// A derived value carries other names, not the one the head left.
		if u.Kind == KindVariable && u.Direct && !slices.Contains(out, u.Name) {
			out = append(out, u.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

func parse(script string) (*syntax.File, error) {
	// shparse refuses a script that nests too deep for the parser and
	// the walker, which recurse once per level (see internal/shparse).
	f, err := shparse.Parse(script)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return f, nil
}

// result lists the uses: variables first, then commands, each by line.
func (w *walker) result() *Analysis {
	a := &Analysis{Sources: w.sources}
	for n := range w.names {
		a.Names = append(a.Names, n)
	}
	slices.Sort(a.Names)
	for _, u := range w.uses {
		a.Uses = append(a.Uses, *u)
	}
	slices.SortStableFunc(a.Uses, func(x, y Use) int {
		if x.Kind != y.Kind {
			return strings.Compare(y.Kind, x.Kind) // variables first
		}
		if x.Line != y.Line {
			return x.Line - y.Line
		}
		return strings.Compare(x.Name, y.Name)
	})
	return a
}

// builtins are bash's builtin commands: PATH does not find them, but a
// function can still shadow them.
var builtins = map[string]bool{}

func init() {
	for _, b := range strings.Fields(`. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait`) {
		builtins[b] = true
	}
}

// dynamic are bash variables whose value bash sets itself at each use.
var dynamic = map[string]bool{"RANDOM": true, "SRANDOM": true, "SECONDS": true, "EPOCHSECONDS": true, "EPOCHREALTIME": true,
	"BASHPID": true, "LINENO": true, "PPID": true, "BASH_COMMAND": true, "FUNCNAME": true, "BASH_SOURCE": true, "BASH_LINENO": true, "PIPESTATUS": true}

// OwnNames returns the names a script assigns on some path (nil when it
// does not parse), for AnalyzeOwn.
func OwnNames(script string) map[string]bool {
	f, err := parse(script)
	if err != nil {
		return nil
	}
	return assignedNames(f)
}
