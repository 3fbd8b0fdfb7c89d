package render

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

// undefinedName matches the error of a name that no variable set defines
// (Jinja2's wording; gonja's is turned into it).
var undefinedName = regexp.MustCompile(`'([^']+)' is undefined|has no attribute '([^']+)'`)

// unrendered returns the templates that the check cannot judge: no render
// of any variable set works at base or at head, and every error at head
// is one the base has too or a name the variable sets lack. That is the
// tool's missing evidence (it has no variables production passes), not
// the repository's problem: such a template is "not run", never "fails
// before this change" and never a pass. A template whose head brings an
// error of another kind (a syntax error) is judged as usual.
func unrendered(jobs []*job) map[string][]*job {
	byTemplate := map[string][]*job{}
	var order []string
	for _, j := range jobs {
		if _, ok := byTemplate[j.tmpl.Path]; !ok {
			order = append(order, j.tmpl.Path)
		}
		byTemplate[j.tmpl.Path] = append(byTemplate[j.tmpl.Path], j)
	}
	out := map[string][]*job{}
	for _, p := range order {
		js := byTemplate[p]
		if slices.ContainsFunc(js, rendersSomewhere) {
			continue
		}
		if slices.ContainsFunc(js, func(j *job) bool {
			if j.head.err == nil {
				return false
			}
			if j.tmpl.AtBase() && j.base.err != nil && sameError(j.base.err, j.head.err) {
				return false
			}
			return !isUndefined(j.head.err) || isStopped(j.head.err)
		}) {
			continue
		}
		out[p] = js
	}
	return out
}

// rendersSomewhere reports whether a side of j that exists renders.
func rendersSomewhere(j *job) bool {
	return (j.tmpl.AtBase() && j.base.err == nil) || (j.tmpl.AtHead() && j.head.err == nil)
}

func isUndefined(err error) bool {
	return undefinedName.MatchString(err.Error())
}

func isStopped(err error) bool {
	var je *jinja.Error
	return errors.As(err, &je) && je.Stopped
}

// notRendered is the finding of a template that no variable set renders:
// the first error, the names the sets lack, and the config lines that
// give them.
func notRendered(p string, js []*job) checks.Finding {
	j := js[0]
	err := j.head.err
	if err == nil {
		err = j.base.err
	}
	var names []string
	for _, x := range js {
		for _, e := range []error{x.head.err, x.base.err} {
			if e == nil {
				continue
			}
			for _, m := range undefinedName.FindAllStringSubmatch(e.Error(), -1) {
				n := m[1] + m[2]
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	f := errFinding(err, p)
	f.Level = checks.LevelWarning
	f.Title = "Not rendered: no variable set renders this template"
	rel := j.tmpl.Rel
	if rel == "" {
		rel = j.tmpl.OldRel
	}
	msg := fmt.Sprintf("%s renders with none of its %s at base or at head (%s), so the check cannot judge this change: the tool does not have the variables that production passes. ",
		p, plural(len(js), "variable set"), strings.TrimSuffix(f.Message, "."))
	if len(names) > 0 {
		msg += fmt.Sprintf("The sets lack %s. Add a test that renders the template the way production does (the tool records its variables), or give them in .github/template-verify.yml:", quoted(names))
		var lines []string
		lines = append(lines, "groups:", "  - name: "+j.group.Name, "    root: "+j.group.Root, "    templates:", "      - path: "+rel, "        vars:")
		for _, n := range names {
			lines = append(lines, "          "+n+": VALUE")
		}
		f.Details = strings.Join(lines, "\n")
	} else {
		msg += "Add a test that renders the template, or its variables in .github/template-verify.yml."
	}
	f.Message = msg
	if f.Path == "" {
		f.Path = path.Join(j.group.Root, rel)
	}
	return f
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	if len(q) > 8 {
		q = append(q[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	return strings.Join(q, ", ")
}
