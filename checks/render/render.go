package render

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/loadclock"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "render"

// Check is the render check.
type Check struct {
	// Python finds the interpreter for the Jinja2 cross-check; nil uses
	// jinja.FindPython. Tests replace it to simulate a machine without Jinja2.
	Python func(ctx context.Context) (path, version string, ok bool)
	// RenderTime, when set, replaces limits.render_time (for tests).
	RenderTime time.Duration
	// MaxKept, when set, replaces MaxKeptOutput (for tests).
	MaxKept int
	// DumpDir, when set, is a folder that gets every rendered byte of
	// record: one file per template, side and variable set, and an index
	// (dump.go; the CLI's run --dump-renders).
	DumpDir string
}

// New returns the render check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// side is one side (base or head) of one template and variable set.
type side struct {
	env    *jinja.Env
	name   string // loader name, relative to the root
	output string
	err    error
	engine string // "Jinja2" when Python Jinja2 made output and err; else gonja
}

// job is one template and one variable set, rendered at base and head.
type job struct {
	tmpl  plan.Template
	group *config.Group
	entry config.Template
	set   config.VarSet
	base  side
	head  side
	shell bool
	// baseVars is set for a variable set that only the base's
	// configuration passes: what the PR changed in the variables.
	baseVars string
}

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	start := time.Now()
	jobs, capFindings, err := c.renderAll(ctx, in)
	res.Findings = append(res.Findings, capFindings...)
	if err != nil && ctx.Err() != nil {
		return stoppedEarly(ctx, res, start, err)
	}
	if err != nil {
		res.Conclusion = checks.Failure
		res.Title = "The templates could not be read"
		res.Summary = err.Error()
		return res
	}
	// The bytes of record are production's: Python Jinja2's, where it is
	// installed. Everything below reads them.
	fid := c.production(ctx, in, jobs)
	res.Notes = append(res.Notes, fid.notes...)
	if c.DumpDir != "" {
		if err := dump(c.DumpDir, jobs, fid, in.Plan.MergeBase, in.Plan.Head); err != nil {
			res.Notes = append(res.Notes, "The renders were not all written: "+err.Error()+".")
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("Every render of this check is in %s (index: %s).", c.DumpDir, DumpIndex))
		}
	}
	var st stats
	var rf []setFinding
	blind := unrendered(jobs)
	for _, p := range slices.Sorted(maps.Keys(blind)) {
		res.Findings = append(res.Findings, notRendered(p, blind[p]))
	}
	for _, j := range jobs {
		j.shell = checks.IsShell(j.entry, j.tmpl.Rel, j.head.output)
		st.renders += boolInt(j.tmpl.AtBase()) + boolInt(j.tmpl.AtHead())
		if j.tmpl.AtHead() {
			st.headRenders++
			st.headOK += boolInt(j.head.err == nil)
		}
		if _, ok := blind[j.tmpl.Path]; ok {
			continue
		}
		rf = append(rf, renderFindings(j, config.PreExistingFails(in.BaseConfig, in.Config))...)
	}
	st.unrendered = len(blind)
	res.Findings = append(res.Findings, mergeSets(rf, setsPerTemplate(jobs))...)
	shellFindings, nShell := shellCheck(ctx, in, jobs)
	st.shellScripts = nShell
	res.Findings = append(res.Findings, shellFindings...)
	res.Findings = append(res.Findings, pyValueFindings(jobs, config.PreExistingFails(in.BaseConfig, in.Config))...)

	res.Changes = changes(in.Plan.Templates, jobs)

	st.templates = len(in.Plan.Templates)
	st.sets = len(jobs)
	res.Figures = st.figures(fid)
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%s in %s", plural(fails, "render problem"), plural(st.templates, "template"))
	case st.unrendered > 0:
		res.Conclusion = checks.NotRun
		res.Title = fmt.Sprintf("%s of %s not rendered: no variable set renders them", plural(st.unrendered, "template"), plural(st.templates, "template"))
	default:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%s render at base and head (%s)", plural(st.templates, "template"), plural(st.renders, "render"))
	}
	res.Summary = summary(st, fails, fid)
	return res
}

// stoppedEarly is the result of a render that the check's time limit (or
// a cancel) stopped: timed out, with the limit, never "could not be read".
func stoppedEarly(ctx context.Context, res checks.Result, start time.Time, err error) checks.Result {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Conclusion, res.Title = checks.Cancelled, "The verification was cancelled"
		res.Summary = fmt.Sprintf("The render stopped before every template was rendered: the verification was cancelled (%v).", err)
		return res
	}
	limit := "its time limit"
	if d, ok := loadclock.Limit(ctx); ok {
		limit = "its time limit of " + d.String() + loadclock.Wall(d, time.Since(start))
	} else if dl, ok := ctx.Deadline(); ok {
		// A plain deadline, set a moment before Run started; the limits
		// are whole seconds.
		limit = "its time limit of " + dl.Sub(start).Round(time.Second).String()
	}
	res.Conclusion = checks.TimedOut
	res.Title = "The render check ran past " + limit
	res.Summary = fmt.Sprintf("The render check ran past %s (checks.timeouts.%s), so not every template was rendered: %v. "+
		"A template that loops without end is a likely cause; each render also stops at limits.render_time.", limit, Name, err)
	return res
}

// renderAll renders every planned template for every variable set at base
// and at head, with gonja in one render worker process (jinja.Renderer),
// which parses each template once. Past limits.templates or
// limits.var_sets the rest is not rendered and a failure finding names the
// limit.
func (c *Check) renderAll(ctx context.Context, in *checks.Input) ([]*job, []checks.Finding, error) {
	lim := in.Config.Limits.Effective()
	rl := jinja.LimitsOf(lim)
	if c.RenderTime > 0 {
		rl.Time = c.RenderTime
	}
	r := jinja.NewRenderer(rl)
	defer r.Close()
	var capped []checks.Finding
	templates := in.Plan.Templates
	if len(templates) > lim.Templates {
		capped = append(capped, checks.Finding{Level: checks.LevelFailure, Title: "Too many templates",
			Message: fmt.Sprintf("This change touches %d templates; limits.templates allows %d (at most %d), so the first %d were rendered and the rest were not.",
				len(templates), lim.Templates, config.CeilingLimits.Templates, lim.Templates)})
		templates = templates[:lim.Templates]
	}
	envs := map[[2]string]*jinja.Env{}
	links := map[[2]string]map[string]string{}
	envFor := func(rev string, g *config.Group) (*jinja.Env, error) {
		key := [2]string{rev, g.Name}
		if e, ok := envs[key]; ok {
			return e, nil
		}
		files, err := in.Plan.Trees.GroupFiles(ctx, rev, g)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", g.Root, short(rev), err)
		}
		// A symbolic link is not a template here: production's loader
		// would follow it (to /proc/self/environ, a key file, anything),
		// and this tool never does. Included, it is not found.
		ln, err := in.Plan.Trees.Symlinks(ctx, rev, g.Root)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", g.Root, short(rev), err)
		}
		links[key] = ln
		// A file larger than the output limit is not sent to a renderer:
		// a 100 MB template cost gigabytes in the parsers and the Jinja2
		// request. Its own render fails with a finding (see bigFile).
		big := false
		for _, data := range files {
			big = big || len(data) > lim.RenderOutput
		}
		if len(ln) > 0 || big {
			regular := make(map[string][]byte, len(files))
			for p, data := range files {
				if _, isLink := ln[p]; !isLink && len(data) <= lim.RenderOutput {
					regular[p] = data
				}
			}
			files = regular
		}

		e, err := jinja.NewSearchEnv(files, g.Root, g.Search, g.Jinja)
		if err != nil {
			return nil, err
		}
		envs[key] = e
		return e, nil
	}
	var jobs []*job
	// kept counts the bytes of output kept for the diff, bash -n and the
	// cross-check; past maxKept the rest is not rendered.
	kept := keptBudget{max: MaxKeptOutput}
	if c.MaxKept > 0 {
		kept.max = c.MaxKept
	}
	for _, t := range templates {
		g, ok := in.Config.Group(t.Group)
		if !ok {
			return nil, capped, fmt.Errorf("template %s: group %q is not in the config", t.Path, t.Group)
		}
		entries := g.TemplateFor(t.Rel)
		if len(entries) == 0 {
			entries = g.TemplateFor(t.OldRel)
		}
		if len(entries) == 0 {
			continue
		}
		entry := entries[0]
		var baseT, headT *parsed
		if t.AtBase() {
			e, err := envFor(in.Plan.MergeBase, g)
			if err != nil {
				return nil, capped, err
			}
			baseT = parse(e, t.OldRel)
			if target, ok := links[[2]string{in.Plan.MergeBase, g.Name}][t.OldPath]; ok {
				baseT.err = &jinja.Error{File: t.OldPath, Msg: fmt.Sprintf("the template is a symbolic link to %q at base; it was not followed", target)}
			} else if err := c.bigFile(ctx, in, in.Plan.MergeBase, g, t.OldPath, lim); err != nil {
				baseT.err = err
			}
		}
		if t.AtHead() {
			e, err := envFor(in.Plan.Head, g)
			if err != nil {
				return nil, capped, err
			}
			if target, ok := links[[2]string{in.Plan.Head, g.Name}][t.Path]; ok {
				capped = append(capped, checks.Finding{Path: t.Path, Level: checks.LevelFailure, Title: "The template is a symbolic link",
					Message: fmt.Sprintf("%s is a symbolic link (git mode 120000) to %q. Production's FileSystemLoader follows it and renders whatever it points at, which may be outside the template folder; this tool does not follow it, so it cannot verify it. Replace the link with a regular file.", t.Path, target)})
				continue
			}
			headT = parse(e, t.Rel)
			if err := c.bigFile(ctx, in, in.Plan.Head, g, t.Path, lim); err != nil {
				headT.err = err
			}
		}
		sets, total := g.VarSetsUpTo(entry, lim.VarSets)
		if total > lim.VarSets {
			capped = append(capped, checks.Finding{Path: t.Path, Level: checks.LevelFailure, Title: "Too many variable sets",
				Message: fmt.Sprintf("The matrix of this template makes more than %d variable sets; limits.var_sets allows %d (at most %d), so only the first %d were rendered.",
					lim.VarSets, lim.VarSets, config.CeilingLimits.VarSets, lim.VarSets)})
		}
		extra, changed := baseVarSets(in, t, g, sets, lim.VarSets)
		for i, set := range append(sets, extra...) {
			j := &job{tmpl: t, group: g, entry: entry, set: set}
			if i >= len(sets) {
				j.baseVars = changed
			}
			if baseT != nil {
				j.base = baseT.render(ctx, r, set.Vars, &kept)
			}
			if headT != nil {
				j.head = headT.render(ctx, r, set.Vars, &kept)
			}
			jobs = append(jobs, j)
		}
		if err := ctx.Err(); err != nil {
			return jobs, capped, err
		}
	}
	return jobs, capped, nil
}

// parsed is a template of one side, checked for UTF-8; the render worker
// parses it once, at its first render.
// bigFile returns an error when the template file is larger than
// limits.render_output: it is not rendered (a template without tags renders
// to itself, so its output would pass the limit anyway).
func (c *Check) bigFile(ctx context.Context, in *checks.Input, rev string, g *config.Group, file string, lim config.Limits) error {
	files, err := in.Plan.Trees.Get(ctx, rev, g.Root)
	if err != nil {
		return nil // the caller has read the same tree
	}
	if n := len(files[file]); n > lim.RenderOutput {
		return &jinja.Error{File: file, Stopped: true, Msg: fmt.Sprintf(
			"the template file is %d bytes, more than the %d bytes that limits.render_output allows (at most %d); it was not rendered",
			n, lim.RenderOutput, config.CeilingLimits.RenderOutput)}
	}
	return nil
}

// renderFindings reports render errors. An error at head fails the check;
// the same error at base (same template, same variable set, same message)
// is a warning that the template fails before this change, or a failure
// when strict (pre_existing: fail); an error only at base is a notice (the
// PR fixes it).
func renderFindings(j *job, strict bool) []setFinding {
	var out []setFinding
	if j.head.err != nil {
		f := errFinding(j.head.err, path.Join(j.group.Root, j.tmpl.Rel))
		f.Level = checks.LevelFailure
		f.Title = "Render error at head"
		baseVarsFinding(&f, j)
		if j.tmpl.AtBase() && j.base.err != nil {
			if sameError(j.base.err, j.head.err) {
				f.Title = "Render error that fails before this change"
				f.Message += " The base fails the same way, so this PR does not cause it."
				if !strict {
					f.Level = checks.LevelWarning
				}
			} else {
				f.Message += " The base fails too, with another error: " + strings.TrimSuffix(errFinding(j.base.err, "").Message, ".") + "."
			}
		}
		out = append(out, setFinding{f: f, set: j.set.Name, template: j.tmpl.Path})
	}
	if j.base.err != nil && j.head.err == nil && j.tmpl.AtHead() {
		f := errFinding(j.base.err, path.Join(j.group.Root, j.tmpl.OldRel))
		f.Level = checks.LevelNotice
		f.Title = "Render error at base only"
		f.Message += " The head renders, so this PR removes the error."
		out = append(out, setFinding{f: f, set: j.set.Name, template: j.tmpl.Path})
	}
	return out
}

// sameError reports whether two render errors say the same thing; the
// line may differ, as the change may move it.
func sameError(a, b error) bool {
	var ja, jb *jinja.Error
	if errors.As(a, &ja) && errors.As(b, &jb) {
		return ja.Msg == jb.Msg
	}
	return a.Error() == b.Error()
}

func errFinding(err error, fallback string) checks.Finding {
	f := checks.Finding{Path: fallback, Message: err.Error()}
	if je, ok := err.(*jinja.Error); ok {
		f.Path, f.Line, f.Message = je.File, je.Line, je.Msg
		if je.Panic {
			f.Message = "The template engine stopped with an internal error: " + je.Msg
		}
	}
	f.Message = strings.TrimSpace(f.Message)
	if !strings.HasSuffix(f.Message, ".") {
		f.Message += "."
	}
	return f
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// short is the shared short commit sha.
var short = words.Short

func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
