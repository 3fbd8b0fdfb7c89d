package taint

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
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
	an   *Analysis
}

// settings are the taint settings of a run: the head's, widened by the
// base's where a wider list is safer (the head cannot unprotect a name or
// make a path trusted).
type settings struct {
	writable, protect, steps []string
	profile                  string
	tamper                   bool
}

func settingsOf(base, head *config.Config) settings {
	h := head.Taint
	if h == nil {
		h = &config.Taint{}
	}
	s := settings{writable: h.WritableGlobs(), protect: h.ProtectedNames(), steps: h.StepPatterns(), profile: h.Profile(), tamper: h.TamperRun()}
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

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	st := settingsOf(in.BaseConfig, in.Config)
	heads, bases, notes, unanalysed, err := renderScripts(ctx, in, st)
	res.Notes = append(res.Notes, notes...)
	res.Findings = append(res.Findings, unanalysed...)
	if err != nil {
		res.Conclusion = checks.Failure
		res.Title = "The shell templates could not be read"
		res.Summary = err.Error()
		return res
	}
	if len(heads) == 0 && len(unanalysed) > 0 {
		res.Conclusion = checks.NotRun
		res.Title = "No shell script could be analysed"
		res.Summary = unanalysed[0].Message
		return res
	}
	if len(heads) == 0 {
		res.Conclusion = checks.Skipped
		res.Title = "No shell template to check"
		res.Summary = "This change touches no shell template that renders at head, so no script sources a file here."
		return res
	}
	preFails := config.PreExistingFails(in.BaseConfig, in.Config)
	atBase := map[string]bool{}
	for _, b := range bases {
		for _, u := range b.an.Uses {
			atBase[key(b.tmpl.Path, b.set, u)] = true
			atBase[key(b.tmpl.OldPath, b.set, u)] = true
		}
	}
	type row struct {
		u         Use
		tmpl      string
		sets      []string
		protected bool
		old       bool
	}
	var rows []*row
	byKey := map[string]*row{}
	withSource := 0
	for _, h := range heads {
		if len(h.an.Sources) > 0 {
			withSource++
		}
		for _, u := range h.an.Uses {
			k := h.tmpl.Path + "\x00" + u.Kind + "\x00" + u.Name + "\x00" + strconv.Itoa(u.Line)
			r, ok := byKey[k]
			if !ok {
				r = &row{u: u, tmpl: h.tmpl.Path, protected: st.protected(u.Name), old: true}
				byKey[k] = r
				rows = append(rows, r)
			}
			r.sets = append(r.sets, h.set)
			r.old = r.old && atBase[key(h.tmpl.Path, h.set, u)]
		}
	}
	setsOf := map[string]int{}
	for _, h := range heads {
		setsOf[h.tmpl.Path]++
	}
	setText := func(r *row) string {
		if n := setsOf[r.tmpl]; n > 1 && len(r.sets) == n {
			return fmt.Sprintf("all %d", n)
		}
		return strings.Join(r.sets, "; ")
	}
	var protectedNew, protectedOld, others int
	otherNames := map[string]bool{}
	for _, r := range rows {
		if !r.protected {
			if k := r.tmpl + "\x00" + r.u.Name; !otherNames[k] {
				otherNames[k] = true
				others++
			}
			continue
		}
		f := checks.Finding{Path: r.tmpl, Line: r.u.Line, Level: checks.LevelFailure,
			Title: fmt.Sprintf("%s is read after a source the agent can write", r.u.Name),
			Message: fmt.Sprintf("The script reads the protected %s %s at line %d, after line %d sources %s, which the agent can write. Nothing between them assigns it, and it was not made readonly before the source, so that file can set it (variable sets: %s). Read it into a readonly variable before any source, then unset it.",
				r.u.Kind, r.u.Name, r.u.Line, r.u.SourceLine, r.u.Source, setText(r))}
		if r.old {
			protectedOld++
			if !preFails {
				f.Level = checks.LevelWarning
			}
			f.Message += " This fails before this change too."
		} else {
			protectedNew++
		}
		res.Findings = append(res.Findings, f)
	}
	if others > 0 {
		t := checks.Table{Title: "Names a sourced file could change", Header: []string{"Template", "Line", "Name", "Kind", "Sourced at", "Variable sets", "At base"}}
		perTemplate := map[string][]string{}
		var order []string
		for _, r := range rows {
			if len(t.Rows) < maxRows {
				t.Rows = append(t.Rows, []string{r.tmpl, strconv.Itoa(r.u.Line), r.u.Name, r.u.Kind, fmt.Sprintf("line %d (%s)", r.u.SourceLine, r.u.Source), setText(r), yesNo(r.old)})
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
			res.Findings = append(res.Findings, checks.Finding{Path: tp, Level: checks.LevelWarning,
				Title:   fmt.Sprintf("%s a sourced file could change", plural(len(names), "name")),
				Message: fmt.Sprintf("After a source of a file the agent can write, the script uses %s that the file could change. The table lists them: %s. taint.protect lists the names that must not change.", plural(len(names), "name"), limitList(names, 12))})
		}
	}
	res.Figures = append(res.Figures,
		checks.Figure{Label: "Shell scripts analysed (template x variable set)", Value: strconv.Itoa(len(heads))},
		checks.Figure{Label: "Scripts that source an agent-writable file", Value: strconv.Itoa(withSource)},
		checks.Figure{Label: "Protected names read after a source", Value: fmt.Sprintf("%d new, %d before this change", protectedNew, protectedOld)},
		checks.Figure{Label: "Other names a sourced file could change", Value: strconv.Itoa(others)},
	)
	tr := c.tamperAll(ctx, in, st, heads, bases, preFails)
	res.Findings = append(res.Findings, tr.findings...)
	res.Figures = append(res.Figures, tr.figures...)
	res.Notes = append(res.Notes, tr.notes...)
	res.Tables = append(res.Tables, tr.tables...)

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
		res.Summary = fmt.Sprintf("None of the %s sources a file that taint.agent_writable names (or a relative or unknown path).", plural(len(heads), "rendered shell script"))
	default:
		res.Conclusion = checks.Success
		res.Title = "No protected name can be changed by a sourced file"
		res.Summary = fmt.Sprintf("%s source a file the agent can write; no protected name is read after it unprotected. %s", plural(withSource, "script"), tr.summary)
		res.Summary = strings.TrimSpace(res.Summary)
	}
	return res
}

const maxRows = 200

func key(tmpl, set string, u Use) string {
	return tmpl + "\x00" + set + "\x00" + u.Kind + "\x00" + u.Name
}

// renderScripts renders every changed shell template for every variable
// set, at head and at the merge base, in one render worker, and analyses
// each.
func renderScripts(ctx context.Context, in *checks.Input, st settings) (heads, bases []*script, notes []string, unanalysed []checks.Finding, err error) {
	lim := in.Config.Limits.Effective()
	r := jinja.NewRenderer(jinja.LimitsOf(lim))
	defer r.Close()
	envs := map[[2]string]*jinja.Env{}
	envFor := func(rev string, g *config.Group) (*jinja.Env, error) {
		k := [2]string{rev, g.Name}
		if e, ok := envs[k]; ok {
			return e, nil
		}
		files, err := in.Plan.Trees.Get(ctx, rev, g.Root)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", g.Root, rev, err)
		}
		links, err := in.Plan.Trees.Symlinks(ctx, rev, g.Root)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", g.Root, rev, err)
		}
		regular := make(map[string][]byte, len(files))
		for p, data := range files {
			if _, isLink := links[p]; !isLink && len(data) <= lim.RenderOutput {
				regular[p] = data
			}
		}
		e, err := jinja.NewEnv(regular, g.Root, g.Jinja)
		if err != nil {
			return nil, err
		}
		envs[k] = e
		return e, nil
	}
	failed := 0
	templates := in.Plan.Templates
	if len(templates) > lim.Templates {
		templates = templates[:lim.Templates]
		notes = append(notes, fmt.Sprintf("Only the first %d templates were analysed (limits.templates).", lim.Templates))
	}
	for _, t := range templates {
		g, ok := in.Config.Group(t.Group)
		if !ok {
			continue
		}
		entries := g.TemplateFor(t.Rel)
		if len(entries) == 0 {
			entries = g.TemplateFor(t.OldRel)
		}
		if len(entries) == 0 {
			continue
		}
		entry := entries[0]
		sets, _ := g.VarSetsUpTo(entry, lim.VarSets)
		for _, side := range []struct {
			at  bool
			rev string
			rel string
			out *[]*script
		}{{t.AtHead(), in.Plan.Head, t.Rel, &heads}, {t.AtBase(), in.Plan.MergeBase, t.OldRel, &bases}} {
			if !side.at {
				continue
			}
			e, err := envFor(side.rev, g)
			if err != nil {
				return nil, nil, notes, unanalysed, err
			}
			for _, set := range sets {
				out, err := r.Render(ctx, e, side.rel, set.Vars)
				if err != nil {
					failed++
					continue
				}
				if !checks.IsShell(entry, side.rel, out) {
					break
				}
				an, err := Analyze(out, st.writable)
				if err != nil {
					if an == nil {
						if side.rev == in.Plan.Head {
							unanalysed = append(unanalysed, checks.Finding{Path: t.Path, Level: checks.LevelWarning,
								Title:   "The script was not analysed",
								Message: fmt.Sprintf("Variable set %s: %v.", set.Name, err)})
						}
						continue
					}
					notes = append(notes, fmt.Sprintf("%s (%s): %v", t.Path, set.Name, err))
				}
				*side.out = append(*side.out, &script{tmpl: t, set: set.Name, text: out, an: an})
			}
		}
		if err := ctx.Err(); err != nil {
			return heads, bases, notes, unanalysed, err
		}
	}
	if failed > 0 {
		notes = append(notes, fmt.Sprintf("%s did not render or parse as bash; the render check reports them, and this check did not analyse them.", plural(failed, "script")))
	}
	return heads, bases, notes, unanalysed, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func limitList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}
