package restore

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/internal/shparse"
)

// Prelude is what the script does before the restore section that the
// section depends on: its shell options (set -e, -u, -o pipefail) and
// the top-level statements that assign the variables, or define the
// functions, that the section reads. Production runs the section after
// them, so the scenarios do too.
type Prelude struct {
	// Text is the statements in script order, each on its own lines; it
	// ends in a newline when not empty.
	Text string
	// Options are the shell options in force at the section start, as
	// "errexit", "nounset", "pipefail", sorted.
	Options []string
	// Vars and Funcs name what the prelude brings in, sorted.
	Vars, Funcs []string
}

// errMarker starts the line that the ERR trap prints when a command fails
// under set -e; the rest is "<exit code> <line>".
const errMarker = "template-verify: step stops: "

// errTrap reports the line of the command that makes the step stop under
// set -e. It changes nothing else: the exit status stays the command's.
const errTrap = `trap 'printf "` + errMarker + `%s %s\n" "$?" "$LINENO" >&2' ERR` + "\n"

// ExtractPrelude parses the rendered script with mvdan.cc/sh and returns
// the prelude of the section that starts at line start (1-based).
func ExtractPrelude(script string, start int, section string) (Prelude, error) {
	// Only the lines before the section are parsed: a syntax error after
	// it does not change what runs before it.
	lines := strings.SplitAfter(script, "\n")
	before := strings.Join(lines[:min(max(start-1, 0), len(lines))], "")
	script = before
	file, err := shparse.Parse(before)
	if err != nil {
		return Prelude{}, fmt.Errorf("the script before the section does not parse as bash: %w", err)
	}
	sec, err := shparse.Parse(section)
	if err != nil {
		return Prelude{}, fmt.Errorf("the section does not parse as bash: %w", err)
	}
	type stmt struct {
		node    *syntax.Stmt
		isSet   bool
		assigns []string // variables it assigns
		fn      string   // function it defines
	}
	var stmts []stmt
	for _, s := range file.Stmts {
		st := stmt{node: s}
		switch c := s.Cmd.(type) {
		case *syntax.FuncDecl:
			if c.Name != nil {
				st.fn = c.Name.Value
			}
		case *syntax.CallExpr:
			if len(c.Args) > 0 && c.Args[0].Lit() == "set" {
				st.isSet = true
			}
			st.assigns = assigned(s)
		default:
			st.assigns = assigned(s)
		}
		stmts = append(stmts, st)
	}
	vars, funcs := map[string]bool{}, map[string]bool{}
	reads(sec, vars, funcs)
	keep := make([]bool, len(stmts))
	for changed := true; changed; {
		changed = false
		for i, st := range stmts {
			if keep[i] {
				continue
			}
			hit := st.fn != "" && funcs[st.fn]
			for _, a := range st.assigns {
				hit = hit || vars[a]
			}
			if hit {
				keep[i], changed = true, true
				reads(st.node, vars, funcs)
			}
		}
	}
	var p Prelude
	opts := map[string]bool{}
	var text strings.Builder
	for i, st := range stmts {
		if !st.isSet && !keep[i] {
			continue
		}
		if st.isSet {
			applySet(st.node.Cmd.(*syntax.CallExpr), opts)
		}
		if st.fn != "" {
			p.Funcs = append(p.Funcs, st.fn)
		}
		for _, a := range st.assigns {
			if keep[i] && !slices.Contains(p.Vars, a) && vars[a] {
				p.Vars = append(p.Vars, a)
			}
		}
		text.WriteString(script[st.node.Pos().Offset():st.node.End().Offset()])
		text.WriteString("\n")
	}
	for _, o := range []string{"errexit", "nounset", "pipefail"} {
		if opts[o] {
			p.Options = append(p.Options, o)
		}
	}
	slices.Sort(p.Vars)
	slices.Sort(p.Funcs)
	p.Text = text.String()
	return p, nil
}

// assigned lists the variables a statement assigns anywhere in it, as in
// `x=1`, `export X=1`, `readonly X`, or an if block that sets x.
func assigned(n syntax.Node) []string {
	var out []string
	syntax.Walk(n, func(n syntax.Node) bool {
		switch c := n.(type) {
		case *syntax.Assign:
			if c.Name != nil && !slices.Contains(out, c.Name.Value) {
				out = append(out, c.Name.Value)
			}
		case *syntax.FuncDecl:
			return false // a function body runs only when it is called
		}
		return true
	})
	return out
}

// reads adds the variables that n expands and the commands it calls.
func reads(n syntax.Node, vars, funcs map[string]bool) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch c := n.(type) {
		case *syntax.ParamExp:
			if c.Param != nil {
				vars[c.Param.Value] = true
			}
		case *syntax.CallExpr:
			if len(c.Args) > 0 {
				if name := c.Args[0].Lit(); name != "" {
					funcs[name] = true
				}
			}
		}
		return true
	})
}

// applySet folds one set command into the options: -e, +e, -euo
// pipefail, -o errexit, +o nounset and so on.
func applySet(c *syntax.CallExpr, opts map[string]bool) {
	short := map[rune]string{'e': "errexit", 'u': "nounset"}
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i].Lit()
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			continue
		}
		on := a[0] == '-'
		for _, r := range a[1:] {
			if r == 'o' && i+1 < len(args) {
				i++
				opts[args[i].Lit()] = on
				continue
			}
			if name, ok := short[r]; ok {
				opts[name] = on
			}
		}
	}
}

var errMarkerRe = regexp.MustCompile(regexp.QuoteMeta(errMarker) + `(\d+) (\d+)`)

// stopLine finds the last ERR trap line in stderr and returns the line of
// the run file where the step stopped; 0 when there is none.
func stopLine(stderr string) int {
	m := errMarkerRe.FindAllStringSubmatch(stderr, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][2])
	return n
}
