package taint

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "taint"

// Check is the taint check.
type Check struct{}

// New returns the taint check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// script is one rendered shell script of one side and variable set.
type script struct {
	tmpl plan.Template
	set  string
	text string
	src  string // the template's source at that revision, for line mapping
	an   *Analysis
}

// templateLine maps a line of the rendered script to its template line, or
// 0 when no single template line made it.
func (s *script) templateLine(line int) int {
	if s.src == "" {
		return 0
	}
	return render.TemplateLine(s.src, s.text, line)
}

// settings are the taint settings of a run: the head's, widened by the
// base's where a wider list is safer (the head cannot unprotect a name or
// make a path trusted).
type settings struct {
	writable, protect, steps []string
	profile                  string
	tamper                   bool
	// defaultProtect: the head's config does not set taint.protect, so
	// the default list decides which names fail.
	defaultProtect bool
}

func settingsOf(base, head *config.Config) settings {
	h := head.Taint
	if h == nil {
		h = &config.Taint{}
	}
	s := settings{writable: h.WritableGlobs(), protect: h.ProtectedNames(), steps: h.StepPatterns(), profile: h.Profile(), tamper: h.TamperRun(), defaultProtect: len(h.Protect) == 0}
	if base != nil && base.Taint != nil {
		b := base.Taint
		for _, g := range b.WritableGlobs() {
			if !slices.Contains(s.writable, g) {
				s.writable = append(s.writable, g)
			}
		}
		for _, n := range b.ProtectedNames() {
			if !slices.Contains(s.protect, n) {
				s.protect = append(s.protect, n)
			}
		}
		s.tamper = s.tamper || b.TamperRun()
	}
	return s
}

// protected reports whether name matches a protect glob.
func (s settings) protected(name string) bool {
	for _, g := range s.protect {
		if ok, err := path.Match(g, name); err == nil && ok {
			return true
		}
	}
	return false
}

// protectedUses lists the variables whose uncovered reads fail when they
// are new, each with why: the sourced file sets the name itself on some
// path (a derived value fails at the names it carries), and taint.protect
// names it ("protect"), or the script reads it with a default or passes
// its value on to git, a --base option or a redirection's file (the
// Reason constants), or its value flows into a name taint.protect names
// ("feeds NAME").
func (s settings) protectedUses(an *Analysis) map[string]string {
	out := map[string]string{}
	for _, u := range an.Uses {
		if u.Kind != KindVariable || !u.Direct {
			continue
		}
		switch {
		case s.protected(u.Name):
			out[u.Name] = "protect"
		case u.Reason != "":
			out[u.Name] = u.Reason
		}
	}
	for _, u := range an.Uses {
		if u.Kind != KindVariable || !s.protected(u.Name) {
			continue
		}
		for _, f := range u.From {
			if _, ok := out[f]; !ok {
				out[f] = "feeds " + u.Name
			}
		}
	}
	return out
}

// Run implements checks.Check. Its steps: render the shell templates,
// gather one row per template and name read after a source, turn the
// protected rows into failures and the others into one warning per
// template with a table, run the tamper check, and conclude.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	st := settingsOf(in.BaseConfig, in.Config)
	heads, bases, notes, unanalysed, err := renderScripts(ctx, in, st)
	res.Notes = append(res.Notes, notes...)
	res.Findings = append(res.Findings, unanalysed...)
	if stopped := stopEarly(&res, heads, unanalysed, err); stopped {
		return res
	}
	preFails := config.PreExistingFails(in.BaseConfig, in.Config)
	rows, withSource := gatherRows(heads, bases, st)
	setText := setTexter(heads)
	counts := addProtected(&res, rows, reasonLines(heads, rows), setText, preFails)
	others := addOthers(&res, rows, setText, st.defaultProtect)
	res.Figures = append(res.Figures,
		checks.Figure{Label: "Shell scripts analysed (template x variable set)", Value: strconv.Itoa(len(heads))},
		checks.Figure{Label: "Scripts that source an agent-writable file", Value: strconv.Itoa(withSource)},
		checks.Figure{Label: "Protected names read after a source", Value: fmt.Sprintf("%d new, %d before this change", counts.new, counts.old)},
		checks.Figure{Label: "Other names a sourced file could change", Value: strconv.Itoa(others)},
	)
	tr := c.tamperWith(ctx, in, st, heads, bases, preFails, counts.static)
	addTamper(&res, tr, counts.staticName)
	conclude(&res, tr, len(heads), withSource, unanalysed)
	return res
}

// stopEarly fills res and reports true when there is nothing to analyse:
// the templates could not be read, none could be analysed, or none is a
// shell template that renders at head.
func stopEarly(res *checks.Result, heads []*script, unanalysed []checks.Finding, err error) bool {
	switch {
	case err != nil:
		res.Conclusion = checks.Failure
		res.Title = "The shell templates could not be read"
		res.Summary = err.Error()
	case len(heads) == 0 && len(unanalysed) > 0:
		res.Conclusion = checks.NotRun
		res.Title = "No shell script could be analysed"
		res.Summary = unanalysed[0].Message
	case len(heads) == 0:
		res.Conclusion = checks.Skipped
		res.Title = "No shell template to check"
		res.Summary = "This change touches no shell template that renders at head, so no script sources a file here."
	default:
		return false
	}
	return true
}

// useRow is one template and name read after a source, over all the
// variable sets that read it.
type useRow struct {
	u         Use
	tmpl      string
	line      int    // template line, 0 when unknown
	at        string // the line for the table
	srcLine   int    // template line of the source, 0 when unknown
	why       string // why it is protected (see protectedUses)
	sets      []string
	protected bool
	old       bool
}

// gatherRows makes one row per template, kind and name that the head
// scripts read after a source, in the order first read, and counts the
// scripts that source a file.
func gatherRows(heads, bases []*script, st settings) (rows []*useRow, withSource int) {
	atBase := map[string]bool{}
	for _, b := range bases {
		for _, u := range b.an.Uses {
			atBase[key(b.tmpl.Path, b.set, u)] = true
			atBase[key(b.tmpl.OldPath, b.set, u)] = true
		}
	}
	byKey := map[string]*useRow{}
	for _, h := range heads {
		if len(h.an.Sources) > 0 {
			withSource++
		}
		why := st.protectedUses(h.an)
		for _, u := range h.an.Uses {
			tl := h.templateLine(u.Line)
			at := strconv.Itoa(tl)
			if tl == 0 {
				at = fmt.Sprintf("rendered %d", u.Line)
			}
			k := h.tmpl.Path + "\x00" + u.Kind + "\x00" + u.Name
			r, ok := byKey[k]
			if !ok {
				r = &useRow{u: u, tmpl: h.tmpl.Path, line: tl, at: at, srcLine: h.templateLine(u.SourceLine), old: true}
				byKey[k] = r
				rows = append(rows, r)
			}
			if w, ok := why[u.Name]; ok && u.Kind == KindVariable && r.why == "" {
				r.protected, r.why = true, w
				r.u.Reason, r.u.ReasonLine, r.u.ReasonVia = u.Reason, u.ReasonLine, u.ReasonVia
			}
			r.sets = append(r.sets, h.set)
			r.old = r.old && atBase[key(h.tmpl.Path, h.set, u)]
		}
	}
	return rows, withSource
}

// reasonLines gives each protected row the template line of the read that
// makes it protected.
func reasonLines(heads []*script, rows []*useRow) map[*useRow]int {
	reasonLine := map[*useRow]int{}
	for _, h := range heads {
		for _, r := range rows {
			if r.tmpl == h.tmpl.Path && r.u.ReasonLine > 0 && reasonLine[r] == 0 && slices.Contains(r.sets, h.set) {
				reasonLine[r] = h.templateLine(r.u.ReasonLine)
			}
		}
	}
	return reasonLine
}

// setTexter returns the text naming a row's variable sets: "all N" when
// the row is read in every set of its template.
func setTexter(heads []*script) func(*useRow) string {
	setsOf := map[string]int{}
	for _, h := range heads {
		setsOf[h.tmpl.Path]++
	}
	return func(r *useRow) string {
		if n := setsOf[r.tmpl]; n > 1 && len(r.sets) == n {
			return fmt.Sprintf("all %d", n)
		}
		return strings.Join(r.sets, "; ")
	}
}

// protectedCounts are what addProtected found.
type protectedCounts struct {
	new, old   int
	static     map[string]bool // template and name with a protected finding
	staticName map[int]string  // index in res.Findings -> name
}

// addProtected adds a finding for each protected row: a failure, or a
// warning when it failed at base too and the config does not fail
// pre-existing problems.
func addProtected(res *checks.Result, rows []*useRow, reasonLine map[*useRow]int, setText func(*useRow) string, preFails bool) protectedCounts {
	c := protectedCounts{static: map[string]bool{}, staticName: map[int]string{}}
	for _, r := range rows {
		if !r.protected {
			continue
		}
		f := checks.Finding{Path: r.tmpl, Line: r.line, Level: checks.LevelFailure,
			Title:   fmt.Sprintf("%s is read after a source the agent can write", r.u.Name),
			Message: protectedMessage(r.u, r.line, r.srcLine, reasonLine[r], r.why, setText(r))}
		if r.old {
			c.old++
			if !preFails {
				f.Level = checks.LevelWarning
			}
			f.Message += " This fails before this change too."
		} else {
			c.new++
		}
		c.static[r.tmpl+"\x00"+r.u.Name] = true
		c.staticName[len(res.Findings)] = r.u.Name
		res.Findings = append(res.Findings, f)
	}
	return c
}

// addOthers adds the table of all rows and one warning per template
// naming its unprotected names, and returns how many distinct template
// and name pairs are unprotected. The warnings are advisory when the
// default taint.protect, not the repository's config, left the names out.
func addOthers(res *checks.Result, rows []*useRow, setText func(*useRow) string, advisory bool) int {
	others := 0
	otherNames := map[string]bool{}
	for _, r := range rows {
		if k := r.tmpl + "\x00" + r.u.Name; !r.protected && !otherNames[k] {
			otherNames[k] = true
			others++
		}
	}
	if others == 0 {
		return 0
	}
	t := checks.Table{Title: "Names a sourced file could change", Header: []string{"Template", "Line", "Name", "Kind", "Carries", "Sourced at", "Variable sets", "At base"}}
	perTemplate := map[string][]string{}
	var order []string
	for _, r := range rows {
		if len(t.Rows) < maxRows {
			t.Rows = append(t.Rows, []string{r.tmpl, r.at, r.u.Name, r.u.Kind, strings.Join(r.u.From, ", "), fmt.Sprintf("%s (%s)", shortLine(r.srcLine, r.u.SourceLine), r.u.Source), setText(r), yesNo(r.old)})
		}
		if r.protected {
			continue
		}
		if _, ok := perTemplate[r.tmpl]; !ok {
			order = append(order, r.tmpl)
		}
		if !slices.Contains(perTemplate[r.tmpl], r.u.Name) {
			perTemplate[r.tmpl] = append(perTemplate[r.tmpl], r.u.Name)
		}
	}
	if len(rows) > maxRows {
		res.Notes = append(res.Notes, fmt.Sprintf("The table shows the first %d of %d names.", maxRows, len(rows)))
	}
	res.Tables = append(res.Tables, t)
	for _, tp := range order {
		names := perTemplate[tp]
		res.Findings = append(res.Findings, checks.Finding{Path: tp, Level: checks.LevelWarning, Advisory: advisory,
			Title:   fmt.Sprintf("%s a sourced file could change", plural(len(names), "name")),
			Message: fmt.Sprintf("After a source of a file the agent can write, the script uses %s that the file could change. The table lists them: %s. taint.protect lists the names that must not change.", plural(len(names), "name"), limitList(names, 12))})
	}
	return others
}

// addTamper adds the tamper run's results, and to each protected finding
// the values the tamper run saw a hostile profile file turn.
func addTamper(res *checks.Result, tr tamperResult, staticName map[int]string) {
	for i, f := range res.Findings {
		if name, ok := staticName[i]; ok {
			if turns := tr.confirmed[f.Path+"\x00"+name]; len(turns) > 0 {
				res.Findings[i].Message += " The tamper run confirms it: a hostile profile file turns " + strings.Join(turns, "; ") + "."
			}
		}
	}
	res.Findings = append(res.Findings, tr.findings...)
	res.Figures = append(res.Figures, tr.figures...)
	res.Notes = append(res.Notes, tr.notes...)
	res.Tables = append(res.Tables, tr.tables...)
}

// conclude sets the conclusion, title and summary from the findings.
func conclude(res *checks.Result, tr tamperResult, heads, withSource int, unanalysed []checks.Finding) {
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%s: a sourced file can change what the script does", plural(fails, "problem"))
		res.Summary = fmt.Sprintf("%s of the changed shell scripts let a file the agent can write change a protected name (taint.protect).", plural(fails, "finding"))
	case len(unanalysed) > 0:
		res.Conclusion = checks.NotRun
		res.Title = fmt.Sprintf("%s not analysed", plural(len(unanalysed), "script"))
		res.Summary = "No new protected name is read after a source in the scripts analysed, but some were not analysed: " + unanalysed[0].Message
	case tr.notRun != "":
		res.Conclusion = checks.NotRun
		res.Title = "The tamper run did not complete"
		res.Summary = "The static analysis found no new protected name read after a source, but the tamper run did not complete: " + tr.notRun
	case withSource == 0:
		res.Conclusion = checks.Success
		res.Title = "No script sources a file the agent can write"
		res.Summary = fmt.Sprintf("None of the %s sources a file the agent can write: any file the script did not write itself first, or, when taint.agent_writable narrows it, a file its globs name (or a relative or unknown path).", plural(heads, "rendered shell script"))
	default:
		res.Conclusion = checks.Success
		res.Title = "No protected name can be changed by a sourced file"
		res.Summary = fmt.Sprintf("%s source a file the agent can write; no protected name is read after it unprotected. %s", plural(withSource, "script"), tr.summary)
		res.Summary = strings.TrimSpace(res.Summary)
	}
}

const maxRows = 200

func key(tmpl, set string, u Use) string {
	return tmpl + "\x00" + set + "\x00" + u.Kind + "\x00" + u.Name
}

// protectedMessage says why a protected read fails and what to do.
func protectedMessage(u Use, line, srcLine, reasonLine int, why, sets string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The script reads %s at %s, after %s sources %s, which the agent can write. ", u.Name, lineText(line, u.Line), lineText(srcLine, u.SourceLine), u.Source)
	b.WriteString("No assignment after the source covers it on every path, and it was not made readonly before the source, so that file can set it. ")
	at := lineText(reasonLine, u.ReasonLine)
	via := ""
	if u.ReasonVia != "" {
		via = " through " + u.ReasonVia
	}
	switch {
	case why == "protect":
		b.WriteString("taint.protect names it. ")
	case strings.HasPrefix(why, "feeds "):
		fmt.Fprintf(&b, "Its value flows into %s, which taint.protect names. ", strings.TrimPrefix(why, "feeds "))
	case why == ReasonDefault:
		fmt.Fprintf(&b, "It is protected because the script reads it with a default at %s: the script expects its value from outside. ", at)
	case why == ReasonGit:
		fmt.Fprintf(&b, "It is protected because its value reaches the arguments of git at %s%s, where it can choose the revision. ", at, via)
	case why == ReasonBase:
		fmt.Fprintf(&b, "It is protected because its value follows a base option at %s%s. ", at, via)
	case why == ReasonPath:
		fmt.Fprintf(&b, "It is protected because its value names a file that a redirection at %s reads or writes%s. ", at, via)
	}
	fmt.Fprintf(&b, "Variable sets: %s. Read it into a readonly variable before any source and unset it, or assign it after the last source on every path.", sets)
	return b.String()
}

// shortLine is lineText for a table cell: a template line's number, or
// "rendered N".
func shortLine(templateLine, renderedLine int) string {
	if templateLine > 0 {
		return strconv.Itoa(templateLine)
	}
	return fmt.Sprintf("rendered %d", renderedLine)
}

// lineText names a template line, or the rendered line when no template
// line is known.
func lineText(templateLine, renderedLine int) string {
	if templateLine > 0 {
		return fmt.Sprintf("template line %d", templateLine)
	}
	return fmt.Sprintf("rendered line %d", renderedLine)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count

func limitList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}
