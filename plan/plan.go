package plan

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// Status says how a template changed.
type Status string

const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
	Renamed  Status = "renamed"
	// Included: the template itself is unchanged, but a file it includes
	// changed.
	Included Status = "included"
)

// Template is one template to verify.
type Template struct {
	Group   string // config group name
	Path    string // repository path at head (for Deleted: at base)
	OldPath string // repository path at base
	Rel     string // Path relative to the group root (loader name at head)
	OldRel  string // OldPath relative to the group root (loader name at base)
	Status  Status
	// Via lists the changed included files that put an Included template in
	// the plan.
	Via []string
}

// AtBase reports whether the template exists at the base.
func (t Template) AtBase() bool { return t.Status != Added }

// AtHead reports whether the template exists at the head.
func (t Template) AtHead() bool { return t.Status != Deleted }

// Plan is what one verification covers.
type Plan struct {
	BaseRev, HeadRev string // as the user gave them
	Base, Head       string // full shas
	MergeBase        string // the commit templates are rendered at as "base"
	Changed          []gitx.FileChange
	Templates        []Template
	Trees            *Trees
}

// Empty reports whether no template changed.
func (p *Plan) Empty() bool { return len(p.Templates) == 0 }

// ChangedPaths returns every changed path, old and new names both.
func (p *Plan) ChangedPaths() []string {
	var out []string
	for _, c := range p.Changed {
		out = append(out, c.Path)
		if c.OldPath != c.Path {
			out = append(out, c.OldPath)
		}
	}
	return out
}

// Build resolves the revisions, diffs them as a pull request does, and
// selects the templates to verify.
func Build(ctx context.Context, repo gitx.Repo, cfg *config.Config, baseRev, headRev string) (*Plan, error) {
	base, err := repo.Resolve(ctx, baseRev)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	head, err := repo.Resolve(ctx, headRev)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	mb, err := repo.MergeBase(ctx, base, head)
	if err != nil {
		return nil, err
	}
	changed, err := repo.Diff(ctx, mb, head)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", baseRev, headRev, err)
	}
	p := &Plan{BaseRev: baseRev, HeadRev: headRev, Base: base, Head: head, MergeBase: mb, Changed: changed, Trees: &Trees{Repo: repo}}
	if p.Templates, err = p.SelectedBy(ctx, cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// SelectedBy returns, in path order, the templates that cfg selects among
// the changed files, and the templates of cfg's groups that include a
// changed file. It does not change the plan: a caller that verifies what
// two configurations select (the base's and the head's) adds the
// templates it lacks with Add.
func (p *Plan) SelectedBy(ctx context.Context, cfg *config.Config) ([]Template, error) {
	var out []Template
	direct := map[string]bool{} // repository paths already selected
	changedUnder := map[string][]string{}
	for _, c := range p.Changed {
		g, rel, ok := cfg.GroupOf(c.Path)
		oldG, oldRel, oldOK := cfg.GroupOf(c.OldPath)
		if !ok && oldOK {
			g, rel, ok = oldG, oldRel, true
		}
		if !ok {
			continue
		}
		changedUnder[g.Name] = append(changedUnder[g.Name], rel)
		if oldOK && oldG.Name == g.Name && oldRel != rel {
			changedUnder[g.Name] = append(changedUnder[g.Name], oldRel)
		}
		isTemplate := len(g.TemplateFor(rel)) > 0 || (oldOK && len(oldG.TemplateFor(oldRel)) > 0)
		if !isTemplate {
			continue
		}
		t := Template{Group: g.Name, Path: c.Path, OldPath: c.OldPath, Rel: rel, OldRel: rel}
		if oldOK && oldG.Name == g.Name {
			t.OldRel = oldRel
		}
		switch c.Status {
		case 'A':
			t.Status = Added
		case 'D':
			t.Status = Deleted
		case 'R':
			t.Status = Renamed
		case 'C':
			t.Status = Added
		default:
			t.Status = Modified
		}
		direct[c.Path] = true
		out = append(out, t)
	}
	// Templates that include a changed file, directly or through other
	// includes, at base or at head.
	for i := range cfg.Groups {
		g := &cfg.Groups[i]
		if len(changedUnder[g.Name]) == 0 {
			continue
		}
		files, err := p.Trees.Get(ctx, p.Head, g.Root)
		if err != nil {
			return nil, fmt.Errorf("read %s at head: %w", g.Root, err)
		}
		includes := IncludeGraph(files, g.Root)
		for _, inc := range DependsOn(includes, changedUnder[g.Name]) {
			rp := path.Join(g.Root, inc.Template)
			if direct[rp] || len(g.TemplateFor(inc.Template)) == 0 {
				continue
			}
			direct[rp] = true
			out = append(out, Template{Group: g.Name, Path: rp, OldPath: rp, Rel: inc.Template, OldRel: inc.Template, Status: Included, Via: inc.Via})
		}
	}
	sortTemplates(out)
	return out, nil
}

// Add puts ts into the plan, except those whose path the plan already
// holds, and returns the ones it added.
func (p *Plan) Add(ts []Template) []Template {
	have := map[string]bool{}
	for _, t := range p.Templates {
		have[t.Path] = true
	}
	var added []Template
	for _, t := range ts {
		if have[t.Path] {
			continue
		}
		have[t.Path] = true
		added = append(added, t)
	}
	p.Templates = append(p.Templates, added...)
	sortTemplates(p.Templates)
	return added
}

func sortTemplates(ts []Template) {
	slices.SortFunc(ts, func(a, b Template) int { return strings.Compare(a.Path, b.Path) })
}

var includeRe = regexp.MustCompile(`\{%-?\s*(?:include|import|extends|from)\s+["']([^"']+)["']`)

// IncludeGraph maps each template (relative to root) to the templates it
// names in include, import, extends and from tags.
func IncludeGraph(files map[string][]byte, root string) map[string][]string {
	graph := map[string][]string{}
	for p, data := range files {
		rel := strings.TrimPrefix(p, strings.TrimSuffix(root, "/")+"/")
		for _, m := range includeRe.FindAllSubmatch(data, -1) {
			graph[rel] = append(graph[rel], string(m[1]))
		}
	}
	return graph
}

// Dependent is a template that depends on changed files through includes.
type Dependent struct {
	Template string
	Via      []string
}

// DependsOn returns, in name order, every template that reaches one of the
// changed files through one or more includes.
func DependsOn(graph map[string][]string, changed []string) []Dependent {
	isChanged := map[string]bool{}
	for _, c := range changed {
		isChanged[c] = true
	}
	var out []Dependent
	for _, t := range slices.Sorted(maps.Keys(graph)) {
		seen := map[string]bool{t: true}
		var via []string
		stack := append([]string{}, graph[t]...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[n] {
				continue
			}
			seen[n] = true
			if isChanged[n] {
				via = append(via, n)
			}
			stack = append(stack, graph[n]...)
		}
		if len(via) > 0 {
			slices.Sort(via)
			out = append(out, Dependent{Template: t, Via: via})
		}
	}
	return out
}
