package synccheck

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/rendertemplate"
	"github.com/formula-code/template-verify/plan"
)

// Name is the check's name.
const Name = "sync"

// Check is the sync check.
type Check struct {
	mu sync.Mutex
	// found holds the discovered groups of each plan seen.
	found map[*plan.Plan]*discovery
}

// New returns the sync check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// copyState is one copy at one commit.
type copyState struct {
	path     string // repository path
	rendered bool   // the items come from the rendered template
	items    []Item
	// missing says that the file, array, name or marker is not there;
	// broken that the copy is there but cannot be read (a render error,
	// a value that is not a literal). Either way it is not compared.
	missing, broken string
}

func (s copyState) usable() bool { return s.missing == "" && s.broken == "" }

func (s copyState) problem() string {
	if s.missing != "" {
		return s.missing
	}
	return s.broken
}

// lack is an item a copy does not have that another copy has.
type lack struct {
	value string
	from  int // the index of the copy that has it
	line  int // its line there
}

// side is a group at one commit.
type side struct {
	states []copyState
	lacks  [][]lack // per copy; nil when a copy is not usable
}

func (s side) usable() bool {
	for _, st := range s.states {
		if !st.usable() {
			return false
		}
	}
	return true
}

// indexOf is the index of the copy at repository path p.
func indexOf(s side, p string) int {
	for i, st := range s.states {
		if st.path == p {
			return i
		}
	}
	return 0
}

// onlyMissing reports whether every copy that is not usable is missing
// (not there), rather than there and unreadable.
func onlyMissing(s side) bool {
	for _, st := range s.states {
		if st.broken != "" {
			return false
		}
	}
	return true
}

func (s side) differ() bool {
	for _, l := range s.lacks {
		if len(l) > 0 {
			return true
		}
	}
	return false
}

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	// The groups are read at the base when it has a configuration: a pull
	// request cannot excuse its own difference (only_here, drop) or drop
	// a group.
	cfg := in.Config
	if in.BaseConfig != nil && in.BaseConfig.Sync != nil {
		cfg = in.BaseConfig
	}
	discovering := cfg.Sync != nil && cfg.Sync.Discovers()
	if cfg.Sync == nil || len(cfg.Sync.Groups) == 0 && !discovering {
		res.Conclusion, res.Title = checks.Skipped, "No sync groups are configured"
		res.Summary = res.Title + "."
		return res
	}
	if cfg != in.Config && !reflect.DeepEqual(cfg.Sync, in.Config.Sync) {
		res.Notes = append(res.Notes, "This change edits the sync block; the base's block is used, and the new one applies after the merge.")
	}
	baseCfg := in.Config
	if in.BaseConfig != nil {
		baseCfg = in.BaseConfig
	}
	r := jinja.NewRenderer(jinja.LimitsOf(in.Config.Limits.Effective()))
	defer r.Close()
	strict := config.PreExistingFails(in.BaseConfig, in.Config)
	touched := touchedPaths(in)

	table := checks.Table{Title: "Copies that must stay equal", Header: []string{"Group", "Copies", "Base", "Head"}}
	compared, notCompared := 0, 0
	var skippedNames, notApplicable []string
	for _, g := range cfg.Sync.Groups {
		if !triggered(cfg, g, touched) {
			skippedNames = append(skippedNames, g.Name)
			continue
		}
		base := c.side(ctx, in, r, baseCfg, cfg, g, in.Plan.MergeBase)
		head := c.side(ctx, in, r, in.Config, cfg, g, in.Plan.Head)
		if err := ctx.Err(); err != nil {
			res.Conclusion, res.Title = checks.Cancelled, "The sync check was stopped"
			return res
		}
		fs, ok := judge(g, base, head, strict)
		switch {
		case ok:
			compared++
		case !cfg.Sync.Explicit && onlyMissing(base) && onlyMissing(head):
			// datasmith's default names the grader's file, which this
			// repository does not have: the default does not apply here,
			// whatever pre_existing says.
			notApplicable = append(notApplicable, g.Name)
			for i := range fs {
				fs[i].Level = checks.LevelWarning
				fs[i].Message = fmt.Sprintf("Sync group %s is a default. At the base and at the head, %s. So the default group does not apply to this repository.", g.Name, strings.TrimSuffix(head.states[indexOf(head, fs[i].Path)].problem(), "."))
			}
		default:
			notCompared++
			res.Notes = append(res.Notes, fmt.Sprintf("Sync group %s was not compared: a copy is missing or unreadable at the base and at the head.", g.Name))
		}
		res.Findings = append(res.Findings, fs...)
		table.Rows = append(table.Rows, []string{g.Name, copyList(head), verdict(base), verdict(head)})
	}
	total := len(cfg.Sync.Groups)
	if discovering {
		dr, err := c.runDiscovered(ctx, in.Plan, []*config.Config{in.Config, in.BaseConfig}, cfg.Sync, namedPairs(cfg))
		if err != nil {
			if ctx.Err() != nil {
				res.Conclusion, res.Title = checks.Cancelled, "The sync check was stopped"
				return res
			}
			notCompared++
			res.Notes = append(res.Notes, fmt.Sprintf("Discovery of copies did not run: %v.", err))
		}
		res.Findings = append(res.Findings, dr.findings...)
		res.Notes = append(res.Notes, dr.notes...)
		table.Rows = append(table.Rows, dr.rows...)
		compared += dr.compared
		total += dr.compared
	}
	if len(table.Rows) > 0 {
		res.Tables = append(res.Tables, table)
	}
	fails := res.Failures()
	switch {
	case fails > 0:
		res.Conclusion = checks.Failure
		res.Title = fmt.Sprintf("%s of copies that must stay equal", plural(fails, "problem"))
	case notCompared > 0:
		res.Conclusion = checks.NotRun
		res.Title = fmt.Sprintf("%s could not be compared: a copy is missing", plural(notCompared, "sync group"))
	case compared > 0:
		res.Conclusion = checks.Success
		res.Title = fmt.Sprintf("%s equal at the head", plural(compared, "sync group"))
	case len(notApplicable) > 0:
		res.Conclusion = checks.Skipped
		res.Title = "The default sync group does not apply: a copy is not in this repository"
		res.Notes = append(res.Notes, fmt.Sprintf("Not compared: %s. A copy that the default names is missing at the base and at the head. To compare it, name its path in the sync block of %s.", strings.Join(notApplicable, ", "), config.Path))
	default:
		res.Conclusion = checks.Skipped
		res.Title = "This change touches no copy of a sync group"
	}
	res.Summary = res.Title + "."
	if len(skippedNames) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("Not compared, because this change touches none of their copies: %s.", strings.Join(skippedNames, ", ")))
	}
	res.Figures = append(res.Figures, checks.Figure{Label: "Sync groups compared", Value: fmt.Sprintf("%d of %d", compared, total)})
	return res
}

// HasWork reports whether the change touches a copy of a sync group of
// the base's or the head's configuration when no template changed (a copy
// in a plain file, such as the grader's list), so that the verification
// runs this check.
func (c *Check) HasWork(p *plan.Plan, base, head *config.Config) bool {
	touched := touchedPlan(p)
	discovering := false
	for _, cfg := range []*config.Config{base, head} {
		if cfg == nil || cfg.Sync == nil {
			continue
		}
		for _, g := range cfg.Sync.Groups {
			if triggered(cfg, g, touched) {
				return true
			}
		}
		discovering = discovering || cfg.Sync.Discovers()
	}
	if !discovering {
		return false
	}
	// A changed plain file may hold a copy of a template's list. HasWork
	// has no context of its own; discovery is bounded (discover.go).
	d, err := c.discovery(context.Background(), p, []*config.Config{head, base})
	return err != nil || len(d.groups) > 0
}

// touchedPaths is every changed path and every planned template (a
// template is planned when a file it includes changed).
func touchedPaths(in *checks.Input) map[string]bool { return touchedPlan(in.Plan) }

func touchedPlan(p *plan.Plan) map[string]bool {
	t := map[string]bool{}
	for _, c := range p.ChangedPaths() {
		t[c] = true
	}
	for _, tm := range p.Templates {
		t[tm.Path], t[tm.OldPath] = true, true
	}
	return t
}

// triggered reports whether the change touches a copy of g.
func triggered(cfg *config.Config, g config.SyncGroup, touched map[string]bool) bool {
	for _, cp := range g.Copies {
		if p, _, _, err := resolve(cfg, cp); err == nil && touched[p] {
			return true
		}
	}
	return false
}

// resolve returns the repository path of a copy and, for a template, its
// group and loader name.
func resolve(cfg *config.Config, cp config.SyncCopy) (string, *config.Group, string, error) {
	if strings.Contains(cp.Path, ":") {
		g, rel, err := cfg.ResolveTemplate(cp.Path)
		if err != nil {
			return "", nil, "", fmt.Errorf("copy %s: %w", cp.Path, err)
		}
		return path.Join(g.Root, rel), g, rel, nil
	}
	if g, rel, ok := cfg.GroupOf(cp.Path); ok && len(g.TemplateFor(rel)) > 0 {
		return cp.Path, g, rel, nil
	}
	return cp.Path, nil, "", nil
}

// side reads every copy of g at rev. groups resolves template groups (the
// configuration of that commit); sync is the configuration of the groups.
func (c *Check) side(ctx context.Context, in *checks.Input, r *jinja.Renderer, groups, sync *config.Config, g config.SyncGroup, rev string) side {
	var s side
	for _, cp := range g.Copies {
		s.states = append(s.states, c.read(ctx, in, r, groups, sync, cp, rev))
	}
	if s.usable() {
		s.lacks = compare(g, s.states)
	}
	return s
}

// read extracts one copy at rev.
func (c *Check) read(ctx context.Context, in *checks.Input, r *jinja.Renderer, groups, sync *config.Config, cp config.SyncCopy, rev string) copyState {
	repoPath, g, rel, err := resolve(groups, cp)
	if err != nil {
		if repoPath, g, rel, err = resolve(sync, cp); err != nil {
			return copyState{path: cp.Path, broken: err.Error()}
		}
	}
	st := copyState{path: repoPath}
	lim := in.Config.Limits.Effective()
	dir := repoPath
	if g != nil {
		dir = g.Root
	}
	if g == nil {
		// A plain copy is one file: a folder would read every file under it.
		entries, err := in.Plan.Trees.Repo.ListTree(ctx, rev, repoPath)
		if err != nil {
			st.broken = fmt.Sprintf("%s cannot be read: %v", repoPath, err)
			return st
		}
		if len(entries) > 0 && !slices.ContainsFunc(entries, func(e gitx.Entry) bool { return e.Path == repoPath }) {
			st.broken = fmt.Sprintf("%s is a folder, not a file", repoPath)
			return st
		}
	}
	files, err := in.Plan.Trees.Get(ctx, rev, dir)
	if err != nil {
		st.broken = fmt.Sprintf("%s cannot be read: %v", repoPath, err)
		return st
	}
	links, _ := in.Plan.Trees.Symlinks(ctx, rev, dir)
	src, ok := files[repoPath]
	switch {
	case !ok:
		st.missing = fmt.Sprintf("%s is not in the repository", repoPath)
		return st
	case links[repoPath] != "":
		st.broken = fmt.Sprintf("%s is a symbolic link to %q; it is not followed", repoPath, links[repoPath])
		return st
	case len(src) > lim.RenderOutput:
		st.broken = fmt.Sprintf("%s is %d bytes, more than limits.render_output (%d)", repoPath, len(src), lim.RenderOutput)
		return st
	}
	text := string(src)
	if g != nil && cp.JinjaDefault == "" {
		out, err := render(ctx, r, g, rel, files, links, cp.Vars, lim)
		if err != nil {
			st.broken = fmt.Sprintf("%s does not render: %v", repoPath, err)
			return st
		}
		text, st.rendered = out, true
	}
	var items []Item
	switch cp.Extractor() {
	case "bash":
		items, err = BashArray(text, cp.Bash)
	case "python":
		items, err = PythonList(text, cp.Python)
	case "jinja_default":
		items, err = JinjaDefault(text, cp.JinjaDefault)
	case "between":
		items, err = Between(text, cp.Between.Start, cp.Between.End)
	case "yaml":
		items, err = DataList(text, "yaml", cp.YAML)
	case "json":
		items, err = DataList(text, "json", cp.JSON)
	case "toml":
		items, err = DataList(text, "toml", cp.TOML)
	}
	if err != nil {
		if errors.Is(err, errNotFound) {
			st.missing = fmt.Sprintf("%s has %s", repoPath, strings.TrimSuffix(err.Error(), ": "+errNotFound.Error()))
		} else {
			st.broken = fmt.Sprintf("%s: %v", repoPath, err)
		}
		return st
	}
	if st.rendered {
		items = sourceLines(items, text, string(src))
	}
	st.items = items
	return st
}

// render renders one template with its first variable set and vars on top,
// in a render worker. Symbolic links and files past the output limit are
// left out of the loader, as the render check does.
func render(ctx context.Context, r *jinja.Renderer, g *config.Group, rel string, files map[string][]byte, links map[string]string, over map[string]any, lim config.Limits) (string, error) {
	regular := make(map[string][]byte, len(files))
	for p, data := range files {
		if _, isLink := links[p]; !isLink && len(data) <= lim.RenderOutput {
			regular[p] = data
		}
	}
	env, err := jinja.NewEnv(regular, g.Root, g.Jinja)
	if err != nil {
		return "", fmt.Errorf("environment: %w", err)
	}
	out, err := r.Render(ctx, env, rel, rendertemplate.FirstVars(g, rel, over))
	if err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	return out, nil
}

// sourceLines moves the line of each item of a rendered template to the
// line of the template source with the same text, when there is exactly
// one; otherwise the line is unknown (0).
func sourceLines(items []Item, rendered, source string) []Item {
	rl := strings.Split(rendered, "\n")
	byText := map[string][]int{}
	for i, l := range strings.Split(source, "\n") {
		t := strings.TrimSpace(l)
		byText[t] = append(byText[t], i+1)
	}
	out := make([]Item, len(items))
	for i, it := range items {
		out[i] = Item{Value: it.Value}
		if it.Line >= 1 && it.Line <= len(rl) {
			if ls := byText[strings.TrimSpace(rl[it.Line-1])]; len(ls) == 1 {
				out[i].Line = ls[0]
			}
		}
	}
	return out
}
