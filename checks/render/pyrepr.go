package render

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/shparse"
	"github.com/formula-code/template-verify/internal/words"
)

// The rendered-value lint finds a Python value that Jinja2 wrote into a
// shell script as text the shell cannot mean: `{{ rounds }}` with
// rounds=None renders `--rounds None`, and bash -n accepts it.
//
// The rule. The lint reads the rendered script with mvdan.cc/sh and looks
// at every word the shell passes as a value: a command's arguments, an
// assignment's value, a redirect target, a test operand, a case pattern,
// a for-loop item, also inside $(...). It does not look at comments or at
// the body of a here-document (text for another program, for example
// Python, where None is a value). A word is a Python value when
//
//   - the whole word, its quotes removed, is None, True or False, alone or
//     after "NAME=" or "--flag=" (`--rounds None`, `ROUNDS="None"`,
//     `--rounds=None`); a word with None inside other text (`echo "rounds:
//     None"`, `"$x None"`) is text, not a value;
//   - the word starts with a Python list or dict of strings, as Python's
//     repr writes them: `['a', 'b']` (the shell splits it into the words
//     `['a',` and `'b']`), `{'k': 1}`, also inside double quotes
//     ("['a', 'b']"). JSON (`["a"]`, `{"k": 1}`) is a value a program can
//     read, so it is not a finding.
//
// A word that the template line holds as literal text (`echo None`
// written in the template) is the author's choice, not a rendered value:
// only words that a {{ expression }} makes count.
//
// A finding fails the check unless the base's render of the same template
// and variable set holds the same value after the same word (then it
// fails before this change, a warning). A base that holds none fails the
// PR: production passes these values, so every task gets the broken word.

// pyValue is one Python value found in a rendered shell script.
type pyValue struct {
	line int    // line of the rendered script, 1-based
	word string // the word as the script writes it
	what string // "None", "True", "False", "a Python list", "a Python dict"
	// key matches the same value at the base: the word before it in the
	// command (the flag) and the word.
	key string
}

var (
	assignPrefixRe = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*|--?[A-Za-z0-9][-A-Za-z0-9_.]*)=`)
	pyListRe       = regexp.MustCompile(`^\[+\s*(?:'|(?:None|True|False)\s*[,\]])`)
	pyDictRe       = regexp.MustCompile(`^\{\s*'[^']*'\s*:`)
)

// pyValues returns the Python values in script, in order. err says that
// mvdan.cc/sh cannot parse the script (bash -n reports a syntax error) or
// that the script is past the shell reader's limits (a *shparse.LimitError).
func pyValues(script string) (vals []pyValue, err error) {
	f, err := shparse.Parse(script)
	if err != nil {
		return nil, err
	}
	raw := func(n syntax.Node) string {
		start, end := int(n.Pos().Offset()), int(n.End().Offset())
		if start < 0 || end > len(script) || start > end {
			return ""
		}
		return script[start:end]
	}
	heredoc := map[*syntax.Word]bool{}
	prev := map[*syntax.Word]string{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Hdoc != nil {
				heredoc[n.Hdoc] = true
			}
		case *syntax.CallExpr:
			for i, w := range n.Args {
				if i > 0 {
					prev[w] = raw(n.Args[i-1])
				}
			}
			for _, a := range n.Assigns {
				if a.Value != nil && a.Name != nil {
					prev[a.Value] = a.Name.Value + "="
				}
			}
		case *syntax.Word:
			if heredoc[n] {
				return false
			}
			text := raw(n)
			if what := pyWord(n, text); what != "" {
				vals = append(vals, pyValue{line: int(n.Pos().Line()), word: text, what: what, key: prev[n] + " " + text})
			}
		}
		return true
	})
	return vals, nil
}

// pyWord says which Python value word w (raw: its text in the script)
// is, or "" when it is none.
func pyWord(w *syntax.Word, raw string) string {
	if lit, ok := wordLiteral(w); ok {
		v := assignPrefixRe.ReplaceAllString(lit, "")
		if v == "None" || v == "True" || v == "False" {
			return v
		}
	}
	inner := raw
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(raw) >= 2 {
			inner = raw[1 : len(raw)-1]
		}
	}
	inner = assignPrefixRe.ReplaceAllString(inner, "")
	switch {
	case pyListRe.MatchString(inner):
		return "a Python list"
	case pyDictRe.MatchString(inner):
		return "a Python dict"
	}
	return ""
}

// wordLiteral is the word with its quotes removed; ok is false when the
// word holds an expansion.
func wordLiteral(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	var add func(parts []syntax.WordPart) bool
	add = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				sb.WriteString(p.Value)
			case *syntax.SglQuoted:
				sb.WriteString(p.Value)
			case *syntax.DblQuoted:
				if !add(p.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !add(w.Parts) {
		return "", false
	}
	return sb.String(), true
}

// literalInTemplate reports whether the template line writes word as
// literal text, outside any {{ expression }}.
func literalInTemplate(tmplLine, word string) bool {
	text := exprRe.ReplaceAllString(tagRe.ReplaceAllString(tmplLine, ""), "\x00")
	for _, tok := range strings.Fields(text) {
		if tok == word {
			return true
		}
	}
	return false
}

// pyValueFindings runs the rendered-value lint on every rendered shell
// script at head and judges each value against the base's render of the
// same template and variable set.
func pyValueFindings(jobs []*job, strict bool) []checks.Finding {
	var out []setFinding
	for _, j := range jobs {
		if !j.shell || !j.tmpl.AtHead() || j.head.err != nil {
			continue
		}
		vals, err := pyValues(j.head.output)
		if shparse.IsLimit(err) {
			out = append(out, setFinding{f: shellLimitFinding(j, err), set: j.set.Name, template: j.tmpl.Path})
			continue
		}
		if err != nil || len(vals) == 0 {
			continue
		}
		atBase := map[string]bool{}
		if j.tmpl.AtBase() && j.base.err == nil {
			baseVals, _ := pyValues(j.base.output)
			for _, v := range baseVals {
				atBase[v.key] = true
			}
		}
		src, _ := j.head.env.Source(j.tmpl.Rel)
		srcLines := strings.Split(src, "\n")
		for _, v := range vals {
			tl := templateLine(src, j.head.output, v.line)
			if tl > 0 && literalInTemplate(srcLines[tl-1], v.word) {
				continue
			}
			out = append(out, setFinding{f: pyValueFinding(j, v, tl, srcLines, atBase[v.key], strict), set: j.set.Name, template: j.tmpl.Path})
		}
	}
	return mergeSets(out, setsPerTemplate(jobs))
}

// shellLimitFinding says that the rendered script is past the limits of
// the shell reader (internal/shparse), so the value lint did not read it.
// Production runs this script, and the tool cannot read it: a failure.
func shellLimitFinding(j *job, err error) checks.Finding {
	return checks.Finding{
		Path:  path.Join(j.group.Root, j.tmpl.Rel),
		Level: checks.LevelFailure,
		Title: "The rendered script is past the shell reader's limits",
		Message: fmt.Sprintf("The rendered-value lint did not read the rendered script: %v. "+
			"The tool does not parse a script this deep or this large, so this check did not verify it.", err),
	}
}

func pyValueFinding(j *job, v pyValue, tl int, srcLines []string, before, strict bool) checks.Finding {
	f := checks.Finding{
		Path:    path.Join(j.group.Root, j.tmpl.Rel),
		Line:    tl,
		Level:   checks.LevelFailure,
		Title:   "Python value in the rendered script",
		Details: excerpt(j.head.output, v.line, 2),
	}
	where := fmt.Sprintf("line %d of the rendered script", v.line)
	if tl > 0 {
		if exprs := exprRe.FindAllString(srcLines[tl-1], -1); len(exprs) > 0 {
			where += ", from " + strings.Join(exprs, " ")
		}
	}
	if strings.HasPrefix(v.what, "a ") {
		f.Message = fmt.Sprintf("The script holds %s, %s, at %s. The shell does not read it as a list: it splits it into words and drops the quotes. "+
			"Join the items for the shell (`{{ x | join(' ') }}`).", v.what, words.Code(cutWord(v.word)), where)
	} else {
		f.Message = fmt.Sprintf("The script passes the Python value %s as a shell word at %s. The shell reads it as the text %s. "+
			"Write the word only when the value is set (`{%% if x is not none %%}`), or convert the value.", words.Code(v.what), where, v.what)
	}
	if before {
		f.Title = "Python value in the rendered script: fails before this change"
		f.Message += " The base's script holds the same value in the same place, so this PR does not cause it."
		if !strict {
			f.Level = checks.LevelWarning
		}
	} else if j.baseVars != "" {
		f.Message += fmt.Sprintf(" These are the variables the base config passes; %s.", j.baseVars)
	}
	return f
}

func cutWord(w string) string {
	if r := []rune(w); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return w
}
