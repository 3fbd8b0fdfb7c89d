package names

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "names"

// Check is the names check.
type Check struct {
	// Python finds the interpreter; nil uses jinja.FindPython. Tests
	// replace it to simulate a machine without Jinja2.
	Python func(ctx context.Context) (path, version string, ok bool)
}

// New returns the names check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// item is one template at base and head.
type item struct {
	tmpl             plan.Template
	group            string
	root             string
	baseJob, headJob int // -1 when the side has no job
	baseDef, headDef map[string]bool
	// headOnly holds names that only the head's config defines for a
	// template the base config selects too. Production passes what the
	// base says, so they count as undefined at head.
	headOnly map[string]bool
}

// Run implements checks.Check. Its steps: plan one Jinja2 parse job per
// template side, run them in one Python helper, and judge the names each
// head reads that no variable set defines.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	req, items, err := planJobs(ctx, in)
	if err != nil {
		res.Conclusion, res.Title = checks.Failure, "The templates could not be read"
		res.Summary = err.Error()
		return res
	}
	if len(items) == 0 {
		res.Conclusion = checks.Skipped
		res.Title = "This change touches no template of a group without strict_undefined"
		res.Summary = res.Title + "."
		return res
	}
	find := c.Python
	if find == nil {
		find = jinja.FindPython
	}
	python, _, ok := find(ctx)
	if !ok {
		res.Conclusion = checks.NotRun
		res.Title = "Not run: no python3 that can import jinja2"
		res.Summary = res.Title + "."
		res.Notes = append(res.Notes, "The names check parses templates with Python Jinja2; install python3 with jinja2 to run it.")
		return res
	}
	found, err := run(ctx, python, req, jinja.LimitsOf(in.Config.Limits.Effective()).Memory)
	if err != nil {
		res.Conclusion, res.Title = checks.NotRun, "Not run: the Jinja2 helper failed"
		res.Summary = err.Error()
		res.Notes = append(res.Notes, err.Error())
		return res
	}
	judged, total := judge(&res, items, found, config.PreExistingFails(in.BaseConfig, in.Config))
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%s that no variable set defines", plural(fails, "new name"))
	case judged == 0:
		res.Conclusion = checks.NotRun
		res.Title = "No template could be parsed"
	default:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("No new undefined name in %s", plural(judged, "template"))
	}
	res.Summary = res.Title + "."
	res.Figures = append(res.Figures,
		checks.Figure{Label: "Templates without strict_undefined checked", Value: fmt.Sprint(judged)},
		checks.Figure{Label: "Names no variable set defines", Value: fmt.Sprint(total)})
	return res
}

// planner builds the helper's request: one environment per group root and
// revision, read once.
type planner struct {
	ctx  context.Context
	in   *checks.Input
	req  request
	envs map[[2]string]int
	err  error // set when a tree could not be read
}

// envOf returns the index of the environment of g at rev, adding it on
// first use; -1 when the tree cannot be read (p.err says why).
func (p *planner) envOf(g *config.Group, rev string) int {
	key := [2]string{rev, g.Name + "\x00" + g.Root}
	if i, ok := p.envs[key]; ok {
		return i
	}
	files, err := p.in.Plan.Trees.Get(p.ctx, rev, g.Root)
	if err != nil {
		p.err = fmt.Errorf("read %s: %w", g.Root, err)
		return -1
	}
	links, _ := p.in.Plan.Trees.Symlinks(p.ctx, rev, g.Root)
	lim := p.in.Config.Limits.Effective()
	rel := map[string][]byte{}
	prefix := strings.TrimSuffix(g.Root, "/") + "/"
	for f, data := range files {
		if _, isLink := links[f]; isLink || len(data) > lim.RenderOutput {
			continue
		}
		if r, ok := strings.CutPrefix(f, prefix); ok {
			rel[r] = data
		}
	}
	i := p.req.addEnv(rel, g.Jinja)
	p.envs[key] = i
	return i
}

// planJobs makes an item, with a parse job per side it exists at, for
// each changed template of a group without strict_undefined.
func planJobs(ctx context.Context, in *checks.Input) (*request, []*item, error) {
	p := &planner{ctx: ctx, in: in, envs: map[[2]string]int{}}
	baseCfg := in.Config
	if in.BaseConfig != nil {
		baseCfg = in.BaseConfig
	}
	var items []*item
	for _, t := range in.Plan.Templates {
		g, ok := in.Config.Group(t.Group)
		if !ok || g.Jinja.StrictUndefined {
			continue
		}
		it := &item{tmpl: t, group: g.Name, root: g.Root, baseJob: -1, headJob: -1}
		if t.AtHead() && !p.planHead(it, g) {
			continue
		}
		if t.AtBase() {
			p.planBase(it, g, baseCfg)
		}
		items = append(items, it)
	}
	return &p.req, items, p.err
}

// planHead adds the head's job of it; false when the head config selects
// no template entry for it.
func (p *planner) planHead(it *item, g *config.Group) bool {
	entries := g.TemplateFor(it.tmpl.Rel)
	if len(entries) == 0 {
		return false
	}
	it.headDef = defined(g, entries[0], p.in.Config.Names)
	if e := p.envOf(g, p.in.Plan.Head); e >= 0 {
		it.headJob = len(p.req.Jobs)
		p.req.Jobs = append(p.req.Jobs, pyJob{Env: e, Name: it.tmpl.Rel})
	}
	return true
}

// planBase adds the base's job of it, with the names the base config
// defines; names only the head's config defines move to it.headOnly.
func (p *planner) planBase(it *item, g *config.Group, baseCfg *config.Config) {
	t := it.tmpl
	bg, ok := baseCfg.Group(t.Group)
	if !ok {
		bg = g
	}
	entry := config.Template{}
	if entries := bg.TemplateFor(t.OldRel); len(entries) > 0 {
		entry = entries[0]
	}
	it.baseDef = defined(bg, entry, baseCfg.Names)
	if p.in.BaseConfig != nil && it.headDef != nil && len(bg.TemplateFor(t.OldRel)) > 0 {
		it.headOnly = map[string]bool{}
		for n := range it.headDef {
			if !it.baseDef[n] {
				it.headOnly[n] = true
				delete(it.headDef, n)
			}
		}
	}
	if e := p.envOf(bg, p.in.Plan.MergeBase); e >= 0 {
		it.baseJob = len(p.req.Jobs)
		p.req.Jobs = append(p.req.Jobs, pyJob{Env: e, Name: t.OldRel})
	}
}

// judge adds a finding for each name a head reads that no variable set
// defines, and notes for templates it could not judge; it returns how
// many templates it judged and how many such names it found.
func judge(res *checks.Result, items []*item, found []Found, strict bool) (judged, total int) {
	for _, it := range items {
		if it.headJob < 0 {
			continue // deleted: nothing to read at the head
		}
		h := found[it.headJob]
		if h.Error != "" {
			res.Notes = append(res.Notes, fmt.Sprintf("%s was not checked: Jinja2 cannot parse it (%s); the render check reports it.", it.tmpl.Path, h.Error))
			continue
		}
		judged++
		var before map[string]bool
		if it.baseJob >= 0 && found[it.baseJob].Error == "" {
			before = map[string]bool{}
			for _, u := range undefined(found[it.baseJob].Names, it.baseDef) {
				before[u.Name] = true
			}
		}
		for _, u := range undefined(h.Names, it.headDef) {
			total++
			res.Findings = append(res.Findings, finding(it, u, before, strict))
		}
		for _, d := range h.Dynamic {
			res.Notes = append(res.Notes, fmt.Sprintf("%s includes a template whose name is computed at render time; its names were not checked.", path.Join(it.root, d)))
		}
	}
	return judged, total
}

// finding reports one undefined name at the head.
func finding(it *item, u Use, before map[string]bool, strict bool) checks.Finding {
	f := checks.Finding{Path: path.Join(it.root, u.File), Line: u.Line, Level: checks.LevelFailure, Title: "A name no variable set defines",
		Message: fmt.Sprintf("%s reads %s, which no variable set of group %s defines. The group has no strict_undefined, so it renders as nothing and no error appears.",
			it.tmpl.Path, u.Name, it.group)}
	if u.File != it.tmpl.Rel {
		f.Message = fmt.Sprintf("%s reads %s (through %s), which no variable set of group %s defines. The group has no strict_undefined, so it renders as nothing and no error appears.",
			it.tmpl.Path, u.Name, path.Join(it.root, u.File), it.group)
	}
	if it.headOnly[u.Name] {
		f.Message += " Only the head's config defines it; the base's config, which says what production passes, does not."
	}
	if before[u.Name] {
		f.Message += " It fails before this change."
		if !strict {
			f.Level = checks.LevelWarning
		}
	} else {
		f.Message += " Add it to the group's vars if production passes it, or give it a default."
	}
	return f
}

// undefined keeps the uses of names that def lacks.
func undefined(uses []Use, def map[string]bool) []Use {
	var out []Use
	for _, u := range uses {
		if !def[u.Name] {
			out = append(out, u)
		}
	}
	return out
}

// defined is every name a variable set of the template defines (the
// group's and the template's vars and matrix keys) and names.ignore.
func defined(g *config.Group, t config.Template, n *config.Names) map[string]bool {
	def := map[string]bool{}
	for _, m := range []map[string]any{g.Vars, t.Vars} {
		for k := range m {
			def[k] = true
		}
	}
	for _, m := range []map[string][]any{g.Matrix, t.Matrix} {
		for k := range m {
			def[k] = true
		}
	}
	for _, s := range t.Sets {
		for k := range s.Vars {
			def[k] = true
		}
	}
	if n != nil {
		for _, k := range n.Ignore {
			def[k] = true
		}
	}
	return def
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count
