package taint

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// MaxTamperHeads is the most distinct script heads (head text and the
// names the rest reads) one run tampers with; each costs ten runs.
const MaxTamperHeads = 16

// RunTimeout limits one tamper run of a script's head.
var RunTimeout = 30 * time.Second

// change is a value the rest of the script reads that a hostile profile
// file changed.
type change struct {
	name, from, to string
	form           string // export, assignment, declare -g, unset
	dir            string // "on": set to 1 with nothing incoming; "off": set to 0 or unset with 1 incoming
}

func (c change) key() string { return c.name + "\x00" + c.form + "\x00" + c.dir }

type tamperResult struct {
	findings []checks.Finding
	figures  []checks.Figure
	notes    []string
	tables   []checks.Table
	notRun   string
	// confirmed holds, by template and name, what the tamper run found for
	// a name that already has a static finding: it goes into that finding.
	confirmed map[string][]string
	summary   string
}

// forms are the ways a hostile file sets a name. Each first tries the
// form in a subshell, so that a readonly name does not stop the script
// (the real file could do the same).
var forms = []struct {
	name string
	on   string // %[1]s is the name, %[2]s the value
}{
	{"export", "( export %[1]s=%[2]s ) 2>/dev/null && export %[1]s=%[2]s\n"},
	{"assignment", "( %[1]s=%[2]s ) 2>/dev/null && %[1]s=%[2]s\n"},
	{"declare -g", "( declare -g %[1]s=%[2]s ) 2>/dev/null && declare -g %[1]s=%[2]s\n"},
}

// tamperAll runs the tamper test on the head of every script that sources
// an agent-writable file (one variable set per distinct head), and on the
// base's script where the head's shows a change.
func (c *Check) tamperAll(ctx context.Context, in *checks.Input, st settings, heads, bases []*script, preFails bool) tamperResult {
	return c.tamperWith(ctx, in, st, heads, bases, preFails, nil)
}

// tamperWith is tamperAll; a change of a name in static (template and name)
// goes into tr.confirmed instead of a finding of its own. It is long
// (about 120 lines): one loop over the heads that runs, compares with the
// base and words the findings, with its counters shared; left for a later
// split.
func (c *Check) tamperWith(ctx context.Context, in *checks.Input, st settings, heads, bases []*script, preFails bool, static map[string]bool) tamperResult {
	tr := tamperResult{confirmed: map[string][]string{}}
	if !st.tamper {
		tr.figures = append(tr.figures, checks.Figure{Label: "Tamper runs", Value: "not run (taint.tamper: false)"})
		return tr
	}
	seen := map[string]bool{}
	emitted := map[string]int{} // finding key -> index in tr.findings
	runs, scripts := 0, 0
	var rows [][]string
	for _, h := range heads {
		if len(h.an.Sources) == 0 {
			continue
		}
		head, rest, ok := cutHead(h, st)
		if !ok {
			tr.notes = append(tr.notes, fmt.Sprintf("%s (%s): no line after the source matches taint.steps, so the tamper run did not run for it.", h.tmpl.Path, h.set))
			continue
		}
		k := head + "\x00" + strings.Join(restReads(rest, h.an.Names), " ")
		if seen[k] {
			continue
		}
		if scripts == MaxTamperHeads {
			tr.notes = append(tr.notes, fmt.Sprintf("The tamper run ran the first %d distinct script heads; the others did not run.", MaxTamperHeads))
			break
		}
		seen[k] = true
		scripts++
		changes, n, err := tamperOne(ctx, in, st, h, head, rest)
		runs += n
		if err != nil {
			// The other heads would most likely stop the same way, each
			// after up to RunTimeout.
			tr.notRun = fmt.Sprintf("%s (%s): %v", h.tmpl.Path, h.set, err)
			break
		}
		if len(changes) == 0 {
			continue
		}
		old := map[string]bool{}
		for _, b := range bases {
			if b.tmpl.OldPath == h.tmpl.OldPath && b.set == h.set && len(b.an.Sources) > 0 {
				bh, brest, ok := cutHead(b, st)
				if !ok {
					continue
				}
				bc, bn, berr := tamperOne(ctx, in, st, b, bh, brest)
				runs += bn
				if berr == nil {
					for _, x := range bc {
						old[x.key()] = true
					}
				}
			}
		}
		// One finding per name and direction, with the forms that did it.
		type group struct {
			x     change
			forms []string
			old   bool
		}
		var groups []*group
		byName := map[string]*group{}
		for _, x := range changes {
			k := x.name + "\x00" + x.dir
			g, ok := byName[k]
			if !ok {
				g = &group{x: x, old: true}
				byName[k] = g
				groups = append(groups, g)
			}
			g.forms = append(g.forms, x.form)
			g.old = g.old && old[x.key()]
			rows = append(rows, []string{h.tmpl.Path, h.set, x.form, x.dir, x.name, x.from, x.to, yesNo(old[x.key()])})
		}
		for _, g := range groups {
			x := g.x
			what := fmt.Sprintf("sets every protected name to 1 (nothing incoming) by %s", strings.Join(g.forms, ", "))
			if x.dir == "off" {
				what = fmt.Sprintf("sets every protected name to 0 or unsets it (1 incoming) by %s", strings.Join(g.forms, ", "))
			}
			f := checks.Finding{Path: h.tmpl.Path, Line: h.templateLine(h.an.Sources[0].Line), Level: checks.LevelFailure,
				Title: fmt.Sprintf("A profile file turns %s %s", x.name, x.dir),
				Message: fmt.Sprintf("The tamper run ran the script's head up to the first step of taint.steps. A hostile file in %s %s. %s was %s in the clean run and %s with the file. The rest of the script reads it (variable set %s).",
					st.profile, what, x.name, x.from, x.to, h.set)}
			if g.old {
				if !preFails {
					f.Level = checks.LevelWarning
				}
				f.Message += " This fails before this change too."
			}
			if sk := h.tmpl.Path + "\x00" + x.name; static[sk] {
				tr.confirmed[sk] = append(tr.confirmed[sk], fmt.Sprintf("%s %s by %s (variable set %s)", x.name, x.dir, strings.Join(g.forms, ", "), h.set))
				continue
			}
			// The same change in another variable set adds its set.
			k := f.Path + "\x00" + f.Title + "\x00" + string(f.Level)
			if i, ok := emitted[k]; ok {
				tr.findings[i].Message += fmt.Sprintf(" The same happens in variable set %s.", h.set)
				continue
			}
			emitted[k] = len(tr.findings)
			tr.findings = append(tr.findings, f)
		}
	}
	if scripts == 0 && tr.notRun == "" {
		tr.figures = append(tr.figures, checks.Figure{Label: "Tamper runs", Value: "not run (no script head to run)"})
		return tr
	}
	sandboxed := "in the " + sandbox.Label(ctx) + " sandbox"
	if !sandbox.Available(ctx) {
		sandboxed = "without a sandbox (bubblewrap is not usable here)"
	}
	tr.figures = append(tr.figures, checks.Figure{Label: "Tamper runs (script head with hostile profile files)", Value: fmt.Sprintf("%d runs of %s, %s; %d values changed", runs, plural(scripts, "script head"), sandboxed, len(rows))})
	if len(rows) > 0 {
		tr.tables = append(tr.tables, checks.Table{Title: "Values a hostile profile file changed", Header: []string{"Template", "Variable set", "Form", "Direction", "Name", "Clean run", "Hostile run", "At base"}, Rows: rows})
	}
	if tr.notRun == "" {
		tr.summary = fmt.Sprintf("The tamper run (%d runs) changed no value the rest of the script reads.", runs)
	}
	return tr
}

// cutHead splits a script at the first line after its first source that
// matches a step pattern: the head runs, the rest is probed.
func cutHead(s *script, st settings) (head, rest string, ok bool) {
	lines := strings.SplitAfter(s.text, "\n")
	var steps []*regexp.Regexp
	for _, p := range st.steps {
		if re, err := regexp.Compile(p); err == nil {
			steps = append(steps, re)
		}
	}
	cut := -1
	for i := s.an.Sources[0].Line; i < len(lines) && cut < 0; i++ {
		for _, re := range steps {
			if re.MatchString(strings.TrimRight(lines[i], "\n")) {
				cut = i
				break
			}
		}
	}
	if cut < 0 {
		return "", "", false
	}
	return strings.Join(lines[:cut], ""), strings.Join(lines[cut:], ""), true
}
