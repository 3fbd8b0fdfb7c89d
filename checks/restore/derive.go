package restore

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
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
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return StepPolicy{}, fmt.Errorf("the step does not parse as bash: %w", err)
	}
	env := collectValues(file)
	writes := collectFileWrites(file, env)
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
		raw, mode, err := grepPatterns(g, env, writes)
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

// grepMode is how grep reads its patterns.
type grepMode struct {
	syntax         byte // 'G' basic, 'E' extended, 'F' fixed, 'P' Perl
	icase, x, word bool
	// counts is true for -c, -q, -l and -L: grep then prints a count, a
	// file name or nothing, not the paths it keeps, so it is no filter.
	counts bool
}

// longFlags are grep's long options that change how it reads patterns,
// as their short letters.
var longFlags = map[string]byte{
	"extended-regexp": 'E', "fixed-strings": 'F', "basic-regexp": 'G', "perl-regexp": 'P',
	"ignore-case": 'i', "line-regexp": 'x', "word-regexp": 'w', "invert-match": 'v',
	"count": 'c', "quiet": 'q', "silent": 'q', "files-with-matches": 'l', "files-without-match": 'L',
}

// set applies one of grep's short options to the mode; -v is an error.
func (m *grepMode) set(f byte) error {
	switch f {
	case 'E', 'F', 'G', 'P':
		m.syntax = f
	case 'i', 'y':
		m.icase = true
	case 'x':
		m.x = true
	case 'w':
		m.word = true
	case 'c', 'q', 'l', 'L':
		m.counts = true
	case 'v':
		return errors.New("grep -v keeps the paths that do not match; the policy cannot be read as a list of protected paths")
	}
	return nil
}

// grepPatterns expands the arguments of one grep command and returns its
// patterns, as written, and how grep reads them.
func grepPatterns(c *syntax.CallExpr, env values, writes map[string][]string) ([]string, grepMode, error) {
	mode := grepMode{syntax: 'G'}
	switch c.Args[0].Lit() {
	case "egrep":
		mode.syntax = 'E'
	case "fgrep":
		mode.syntax = 'F'
	}
	args, err := expand.Fields(expandConfig(env), c.Args[1:]...)
	if err != nil {
		return nil, mode, fmt.Errorf("the grep arguments cannot be read: %w", err)
	}
	var pats, operands []string
	given := false
	readFile := func(name string) error {
		lines, ok := writes[name]
		if !ok {
			return fmt.Errorf("grep reads its patterns from %s, which the step does not write", name)
		}
		pats = append(pats, lines...)
		given = true
		return nil
	}
	takesArg := "efmABCdD"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "regexp", "file":
				if !hasVal {
					if i+1 >= len(args) {
						return nil, mode, fmt.Errorf("grep --%s has no value", name)
					}
					i++
					val = args[i]
				}
				if name == "regexp" {
					pats, given = append(pats, val), true
				} else if err := readFile(val); err != nil {
					return nil, mode, err
				}
			default:
				if f, ok := longFlags[name]; ok {
					if err := mode.set(f); err != nil {
						return nil, mode, err
					}
				}
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				f := a[j]
				if strings.IndexByte(takesArg, f) >= 0 {
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return nil, mode, fmt.Errorf("grep -%c has no value", f)
						}
						i++
						val = args[i]
					}
					switch f {
					case 'e':
						pats, given = append(pats, val), true
					case 'f':
						if err := readFile(val); err != nil {
							return nil, mode, err
						}
					}
					break
				}
				if err := mode.set(f); err != nil {
					return nil, mode, err
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if !given && len(operands) > 0 {
		pats = []string{operands[0]}
	}
	// grep splits each pattern at newlines into several patterns.
	var out []string
	for _, p := range pats {
		out = append(out, strings.Split(p, "\n")...)
	}
	return out, mode, nil
}

// goRegexp turns one grep pattern into a Go regular expression with the
// same matches on a path.
func (m grepMode) goRegexp(p string) (string, error) {
	var re string
	switch m.syntax {
	case 'F':
		re = regexp.QuoteMeta(p)
	case 'E':
		re = posixBrackets(p)
	case 'G':
		re = basicToExtended(p)
	case 'P':
		re = p
	}
	if m.word {
		re = `(?:^|\W)(?:` + re + `)(?:\W|$)`
	}
	if m.x {
		re = `^(?:` + re + `)$`
	}
	if m.icase {
		re = `(?i)` + re
	}
	if _, err := regexp.Compile(re); err != nil {
		return "", err
	}
	return re, nil
}

// posixBrackets copies an extended regular expression, doubling the
// backslashes inside bracket expressions: in POSIX a backslash there is a
// plain character, in Go it escapes.
func posixBrackets(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case c == '[':
			end := bracketEnd(p, i)
			if end < 0 {
				b.WriteString(p[i:])
				return b.String()
			}
			b.WriteString(strings.ReplaceAll(p[i:end+1], `\`, `\\`))
			i = end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// bracketEnd is the index of the "]" that closes the bracket expression
// that starts at p[i], or -1.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++ // a "]" first is a plain character
	}
	for ; j < len(p); j++ {
		switch {
		case p[j] == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '=' || p[j+1] == '.'):
			close := strings.Index(p[j+2:], string(p[j+1])+"]")
			if close < 0 {
				return -1
			}
			j += 2 + close + 1
		case p[j] == ']':
			return j
		}
	}
	return -1
}

// basicToExtended rewrites a POSIX basic regular expression (with GNU's
// \+, \? and \| operators) as an extended one for Go.
func basicToExtended(p string) string {
	var b strings.Builder
	atStart := true // where a "*" is a plain character
	for i := 0; i < len(p); i++ {
		c := p[i]
		start := atStart
		atStart = false
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			switch n {
			case '(', ')', '{', '}', '|', '+', '?':
				b.WriteByte(n)
				atStart = n == '(' || n == '|'
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[':
			end := bracketEnd(p, i)
			if end < 0 {
				b.WriteString(regexp.QuoteMeta(p[i:]))
				return b.String()
			}
			b.WriteString(strings.ReplaceAll(p[i:end+1], `\`, `\\`))
			i = end
		case c == '*' && start:
			b.WriteString(`\*`)
		case c == '^':
			b.WriteByte(c)
			atStart = i == 0 || start
		case strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
