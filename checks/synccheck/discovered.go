package synccheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// headList is one list of a discovered group at the head.
type headList struct {
	list List
	// changed is true when the pull request changed the list's file.
	changed bool
	// gone says why the list is not at the head: its file is deleted, or
	// the file no longer has it. broken says that the file cannot be read.
	gone, broken string
}

// atHead finds the head version of base list l.
func atHead(ctx context.Context, p *plan.Plan, l List, cfgs []*config.Config) headList {
	headPath := l.Path
	h := headList{list: l}
	for _, c := range p.Changed {
		if c.OldPath != l.Path {
			continue
		}
		if c.Status == 'D' {
			h.gone = fmt.Sprintf("%s is deleted", l.Path)
			return h
		}
		headPath, h.changed = c.Path, true
		break
	}
	if !h.changed {
		return h
	}
	files, err := p.Trees.Get(ctx, p.Head, headPath)
	if err != nil {
		h.broken = fmt.Sprintf("%s cannot be read: %v", headPath, err)
		return h
	}
	links, _ := p.Trees.Symlinks(ctx, p.Head, headPath)
	src, ok := files[headPath]
	switch {
	case !ok:
		h.gone = fmt.Sprintf("%s is not a file at the head", headPath)
		return h
	case links[headPath] != "":
		h.broken = fmt.Sprintf("%s is a symbolic link at the head; it is not followed", headPath)
		return h
	case len(src) > maxFileBytes:
		h.broken = fmt.Sprintf("%s is %d bytes at the head, more than the %d KiB discovery reads", headPath, len(src), maxFileBytes>>10)
		return h
	}
	lists, err := listsOf(headPath, src, isTemplate(headPath, cfgs), 0)
	if err != nil {
		h.broken = fmt.Sprintf("%s cannot be read at the head: %s", headPath, trimPath(err, headPath))
		return h
	}
	if m, ok := sameList(l, lists); ok {
		h.list = m
		return h
	}
	h.gone = fmt.Sprintf("%s no longer has the %s", headPath, what(l))
	return h
}

// sameList finds base list l among the head's lists of its file: a named
// list by its key; an unnamed one first by its items (another unnamed
// list may come before it now), then by its key.
func sameList(l List, lists []List) (List, bool) {
	byKey := slices.IndexFunc(lists, func(m List) bool { return m.Key == l.Key })
	if l.Name != "" && byKey >= 0 {
		return lists[byKey], true
	}
	if i := slices.IndexFunc(lists, func(m List) bool { return m.Kind == l.Kind && m.Name == l.Name && sameSet(m.values(), l.values()) }); i >= 0 {
		return lists[i], true
	}
	if byKey >= 0 {
		return lists[byKey], true
	}
	// A named Python display that became another display of the same name
	// (a list written as a frozenset) is the same constant.
	if l.Name != "" && strings.HasPrefix(l.Kind, "Python") {
		if i := slices.IndexFunc(lists, func(m List) bool { return m.Name == l.Name && strings.HasPrefix(m.Kind, "Python") }); i >= 0 {
			return lists[i], true
		}
	}
	return List{}, false
}

// what names a list in a sentence: "bash array pats", "YAML list at line 3".
func what(l List) string {
	if l.Name != "" {
		return l.Kind + " " + l.Name
	}
	return fmt.Sprintf("%s of line %d", l.Kind, l.Line)
}

// judgeFound compares a discovered group at the head and says how it
// stands there: "equal", "differ" (a failure: the change breaks an
// equality that held at the base), "a copy cannot be read" (a failure),
// or "a copy is gone" (a notice: the file or the list was removed, so no
// second copy is left to keep equal).
func judgeFound(g found, a, b headList) (fs []checks.Finding, verdict string) {
	at := a
	if !a.changed && b.changed {
		at = b
	}
	anchor := checks.Finding{Path: at.list.Path, Line: at.list.Line, Level: checks.LevelFailure}
	// A copy that is a set at the head (a list rewritten as a frozenset)
	// has no order to keep.
	g.ordered = g.ordered && !unordered(a.list) && !unordered(b.list)
	how := "as sets"
	if g.ordered {
		how = "in the same order"
	}
	for _, h := range []headList{a, b} {
		if h.broken != "" {
			f := anchor
			f.Title = "A copy cannot be read"
			f.Message = fmt.Sprintf("Discovered copies %s and %s were equal at the base (%s). At the head, %s, so they cannot be compared.", g.a.label(), g.b.label(), how, h.broken)
			return []checks.Finding{f}, "a copy cannot be read"
		}
	}
	for _, h := range []headList{a, b} {
		if h.gone != "" {
			f := anchor
			f.Level, f.Title = checks.LevelNotice, "A copy is gone"
			f.Message = fmt.Sprintf("Discovered copies %s and %s were equal at the base. At the head, %s, so no second copy is left to keep equal.", g.a.label(), g.b.label(), h.gone)
			return []checks.Finding{f}, "a copy is gone"
		}
	}
	av, bv := a.list.values(), b.list.values()
	if g.ordered && slices.Equal(av, bv) || !g.ordered && sameSet(av, bv) {
		return nil, "equal"
	}
	f := anchor
	f.Title = "Copies differ"
	f.Message = fmt.Sprintf("%s and %s were equal at the base (%s). This change makes them differ. Change both the same way.", a.list.label(), b.list.label(), how)
	f.Details = diffDetails(a.list, b.list)
	return []checks.Finding{f}, "differ"
}

// diffDetails lists what each copy lacks that the other has, each item
// with its file and line; for lists that must keep their order and have
// the same items, the first place where the order differs.
func diffDetails(a, b List) string {
	var sb strings.Builder
	for _, pair := range [][2]List{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		has := map[string]bool{}
		for _, it := range x.Items {
			has[it.Value] = true
		}
		var lacks []Item
		for _, it := range y.Items {
			if !has[it.Value] {
				has[it.Value] = true
				lacks = append(lacks, it)
			}
		}
		if len(lacks) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "%s lacks:\n", x.Path)
		for k, it := range lacks {
			if k == maxListed {
				fmt.Fprintf(&sb, "  and %d more\n", len(lacks)-k)
				break
			}
			fmt.Fprintf(&sb, "  %s    (%s:%d)\n", it.Value, y.Path, it.Line)
		}
	}
	if sb.Len() == 0 {
		for i := range min(len(a.Items), len(b.Items)) {
			if a.Items[i].Value != b.Items[i].Value {
				fmt.Fprintf(&sb, "The order differs at item %d: %s:%d has %s, %s:%d has %s.\n", i+1, a.Path, a.Items[i].Line, a.Items[i].Value, b.Path, b.Items[i].Line, b.Items[i].Value)
				break
			}
		}
		if sb.Len() == 0 {
			fmt.Fprintf(&sb, "%s has %d items, %s has %d (an item is there twice).\n", a.Path, len(a.Items), b.Path, len(b.Items))
		}
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// discoveredResult is what the discovered groups add to the result.
type discoveredResult struct {
	rows     [][]string
	findings []checks.Finding
	notes    []string
	compared int
}

// runDiscovered discovers the groups of the change and judges them at the
// head. sync is the sync block in force (the base's); named holds the
// file pairs of its named groups, which discovery leaves to them.
func (c *Check) runDiscovered(ctx context.Context, p *plan.Plan, cfgs []*config.Config, sync *config.Sync, named map[[2]string]bool) (discoveredResult, error) {
	var r discoveredResult
	d, err := c.discovery(ctx, p, cfgs)
	if err != nil {
		return r, err
	}
	r.notes = append(r.notes, d.notes...)
	var ignored []string
	for _, g := range d.groups {
		if named[[2]string{g.a.Path, g.b.Path}] || named[[2]string{g.b.Path, g.a.Path}] {
			continue
		}
		if sync.Ignored(g.a.Path, g.a.Name, g.b.Path, g.b.Name) {
			ignored = append(ignored, g.a.label()+" = "+g.b.label())
			continue
		}
		a, b := atHead(ctx, p, g.a, cfgs), atHead(ctx, p, g.b, cfgs)
		fs, verdict := judgeFound(g, a, b)
		r.findings = append(r.findings, fs...)
		r.compared++
		base := "equal as sets"
		if g.ordered {
			base = "equal in order"
		}
		r.rows = append(r.rows, []string{"discovered", g.a.label() + ", " + g.b.label(), base, verdict})
	}
	if len(ignored) > 0 {
		r.notes = append(r.notes, fmt.Sprintf("Not compared, because sync.ignore of %s names them: %s.", config.Path, strings.Join(ignored, "; ")))
	}
	return r, nil
}

// discovery runs discover once per plan: HasWork and Run share it.
func (c *Check) discovery(ctx context.Context, p *plan.Plan, cfgs []*config.Config) (*discovery, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.found[p]; ok {
		return d, nil
	}
	d, err := discover(ctx, p, cfgs)
	if err != nil {
		return nil, err
	}
	if c.found == nil {
		c.found = map[*plan.Plan]*discovery{}
	}
	c.found[p] = d
	return d, nil
}

// namedPairs holds the pairs of files that a named group of cfg compares.
func namedPairs(cfg *config.Config) map[[2]string]bool {
	named := map[[2]string]bool{}
	for _, g := range cfg.Sync.Groups {
		for _, x := range g.Copies {
			for _, y := range g.Copies {
				px, _, _, _ := resolve(cfg, x)
				py, _, _, _ := resolve(cfg, y)
				named[[2]string{px, py}] = true
			}
		}
	}
	return named
}
