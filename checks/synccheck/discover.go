package synccheck

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// The bounds of discovery in the base tree.
const (
	// maxTreeFiles is the most files of the base tree that discovery reads.
	maxTreeFiles = 5000
	// maxFileBytes is the largest file that discovery reads.
	maxFileBytes = 512 << 10
	// maxTreeBytes is the most bytes that discovery reads in all.
	maxTreeBytes = 48 << 20
	// maxFound is the most discovered groups compared.
	maxFound = 100
)

// found is one discovered group: a list of a changed file and a list of
// another tracked file that were equal at the base. Either file may be a
// template or a plain file.
type found struct {
	a, b List
	// ordered is true when the lists were equal as sequences at the base,
	// false when only as sets.
	ordered bool
}

// discovery is what discovery found at the base of a plan.
type discovery struct {
	groups []found
	// notes say what discovery did not read, and why.
	notes []string
}

// treeFile is one file of the base tree that discovery may read.
type treeFile struct {
	path, sha string
	size      int
}

// isTemplate reports whether p is a template: a file under a group root
// of one of cfgs, or a file named *.j2, *.jinja, *.jinja2.
func isTemplate(p string, cfgs []*config.Config) bool {
	for _, c := range cfgs {
		if c == nil {
			continue
		}
		if g, _, ok := c.GroupOf(p); ok && g.Root != "" && g.Root != "." {
			return true
		}
	}
	return slices.Contains(jinjaExts, path.Ext(p))
}

// discover finds the groups of the change at the base: for each changed
// file that exists at base and head, each list of its base version that
// equals, as a sequence or as a set, a list of another tracked file at the
// base, template or not. cfgs are the configurations whose groups say
// which files are templates (read with their Jinja tags blanked).
func discover(ctx context.Context, p *plan.Plan, cfgs []*config.Config) (*discovery, error) {
	d := &discovery{}
	changed := map[string]bool{} // base paths of changed files at both sides
	for _, c := range p.Changed {
		if c.Status == 'A' || c.Status == 'D' || !readable(c.OldPath) {
			continue
		}
		changed[c.OldPath] = true
	}
	if len(changed) == 0 {
		return d, nil
	}
	files, err := baseFiles(ctx, p, d)
	if err != nil {
		return nil, err
	}
	// Read the changed files and the templates first, then the others,
	// within the byte bound.
	sort.SliceStable(files, func(i, j int) bool { return rank(files[i].path, changed, cfgs) < rank(files[j].path, changed, cfgs) })
	var want []treeFile
	total, skipped := 0, 0
	for _, f := range files {
		if total+f.size > maxTreeBytes || len(want) == maxTreeFiles {
			skipped++
			continue
		}
		total += f.size
		want = append(want, f)
	}
	if skipped > 0 {
		d.notes = append(d.notes, fmt.Sprintf("Discovery read %d files of the base (%d bytes) and left %d out: it reads at most %d files and %d MiB.", len(want), total, skipped, maxTreeFiles, maxTreeBytes>>20))
	}
	shas := make([]string, len(want))
	for i, f := range want {
		shas[i] = f.sha
	}
	blobs, err := p.Trees.Repo.ReadBlobs(ctx, shas)
	if err != nil {
		return nil, fmt.Errorf("read the base tree: %w", err)
	}
	// The anchors of the changed files' lists: a file is parsed only when
	// it holds every anchor of one of them (see anchors).
	changedLists := map[string][]List{}
	var anchorSets [][][]byte
	anchorAll := false
	for _, f := range want {
		if !changed[f.path] {
			continue
		}
		lists, err := ListsOf(f.path, blobs[f.sha], isTemplate(f.path, cfgs))
		if err != nil {
			d.notes = append(d.notes, fmt.Sprintf("Discovery cannot read the lists of %s at the base: %v.", f.path, trimPath(err, f.path)))
			continue
		}
		changedLists[f.path] = lists
		for _, l := range lists {
			if as := anchors(l); len(as) > 0 {
				anchorSets = append(anchorSets, as)
			} else {
				anchorAll = true
			}
		}
	}
	if len(changedLists) == 0 {
		return d, nil
	}
	index := map[string][]List{}
	for _, f := range want {
		if changed[f.path] {
			continue
		}
		src := blobs[f.sha]
		if !anchorAll && !slices.ContainsFunc(anchorSets, func(as [][]byte) bool { return containsAll(src, as) }) {
			continue
		}
		lists, err := ListsOf(f.path, src, isTemplate(f.path, cfgs))
		if err != nil {
			continue // a file that does not parse holds no copy
		}
		for _, l := range lists {
			k := setKey(l.values())
			index[k] = append(index[k], l)
		}
	}
	for _, lists := range changedLists {
		for _, l := range lists {
			k := setKey(l.values())
			index[k] = append(index[k], l)
		}
	}
	d.groups = match(changedLists, index, cfgs)
	if len(d.groups) > maxFound {
		d.notes = append(d.notes, fmt.Sprintf("Discovery found %d groups and compares the first %d.", len(d.groups), maxFound))
		d.groups = d.groups[:maxFound]
	}
	return d, nil
}

// match pairs each list of a changed file with the equal lists of other
// files; a pair is kept once, the template's list first when one is.
func match(changedLists map[string][]List, index map[string][]List, cfgs []*config.Config) []found {
	var out []found
	seen := map[[2]string]bool{}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range changedLists {
			if !yield(p) {
				return
			}
		}
	})
	for _, p := range paths {
		for _, l := range changedLists[p] {
			for _, m := range index[setKey(l.values())] {
				if m.Path == l.Path {
					continue
				}
				id := [2]string{l.Path + "\x00" + l.Key, m.Path + "\x00" + m.Key}
				if id[0] > id[1] {
					id[0], id[1] = id[1], id[0]
				}
				if seen[id] {
					continue
				}
				seen[id] = true
				a, b := l, m
				if !isTemplate(a.Path, cfgs) && isTemplate(b.Path, cfgs) {
					a, b = b, a // the template's list first
				}
				out = append(out, found{a: a, b: b, ordered: slices.Equal(a.values(), b.values()) && !unordered(a) && !unordered(b)})
			}
		}
	}
	return out
}

// rank orders files for reading: changed files, templates, the rest.
func rank(p string, changed map[string]bool, cfgs []*config.Config) int {
	switch {
	case changed[p]:
		return 0
	case isTemplate(p, cfgs):
		return 1
	}
	return 2
}

// baseFiles lists the regular files of the base tree that discovery can
// read (a known format, at most maxFileBytes), with their sizes.
func baseFiles(ctx context.Context, p *plan.Plan, d *discovery) ([]treeFile, error) {
	out, err := p.Trees.Repo.Run(ctx, "ls-tree", "-r", "-z", "-l", "--full-tree", p.MergeBase)
	if err != nil {
		return nil, fmt.Errorf("list the base tree: %w", err)
	}
	var files []treeFile
	large := 0
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 || f[1] != "blob" || f[0] == plan.ModeSymlink || !readable(name) {
			continue
		}
		size, err := strconv.Atoi(f[3])
		if err != nil {
			continue
		}
		if size > maxFileBytes {
			large++
			continue
		}
		files = append(files, treeFile{path: name, sha: f[2], size: size})
	}
	if large > 0 {
		d.notes = append(d.notes, fmt.Sprintf("Discovery left out %d files of the base larger than %d KiB.", large, maxFileBytes>>10))
	}
	return files, nil
}

// setKey is the same for two lists with the same items as sets.
func setKey(values []string) string {
	s := slices.Clone(values)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), "\x00")
}

// sameSet reports whether two lists have the same items as sets.
func sameSet(a, b []string) bool { return setKey(a) == setKey(b) }

// anchors are, for each item of the list that has one, its longest run
// of ASCII letters, digits and underscores, of at least 3 bytes, whose
// neighbours are printable ASCII other than a backslash or a quote, or the
// item's ends. Such a run is written as it is in every format (no escape
// touches it), so a file that holds an equal list holds every anchor.
// Rarer anchors come first: the longer, the rarer.
func anchors(l List) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, it := range l.Items {
		if a := anchor(it.Value); a != "" && !seen[a] {
			seen[a] = true
			out = append(out, []byte(a))
		}
	}
	slices.SortStableFunc(out, func(x, y []byte) int { return len(y) - len(x) })
	return out
}

// anchor is the anchor of one item, "" when it has none.
func anchor(v string) string {
	best := ""
	for i := 0; i < len(v); {
		if !isIdent(v[i]) {
			i++
			continue
		}
		j := i
		for j < len(v) && isIdent(v[j]) {
			j++
		}
		if j-i > len(best) && plainNeighbour(v, i-1) && plainNeighbour(v, j) {
			best = v[i:j]
		}
		i = j
	}
	if len(best) < 3 {
		return ""
	}
	return best
}

// containsAll reports whether src holds every one of subs.
func containsAll(src []byte, subs [][]byte) bool {
	for _, s := range subs {
		if !bytes.Contains(src, s) {
			return false
		}
	}
	return true
}

// plainNeighbour reports whether the byte at i is outside v or printable
// ASCII other than a backslash or a quote.
func plainNeighbour(v string, i int) bool {
	if i < 0 || i >= len(v) {
		return true
	}
	c := v[i]
	return c >= ' ' && c < 0x7f && c != '\\' && c != '"' && c != '\''
}

// trimPath drops the "path: " an error of ListsOf starts with.
func trimPath(err error, p string) string {
	return strings.TrimPrefix(err.Error(), p+": ")
}
