package plan

import (
	"context"
	"maps"
	"sync"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// Trees reads the files under a folder at a commit once and keeps them, so
// that the plan and every check share one read per (commit, folder). Every
// read goes through one git cat-file process (gitx.Batch), which stops
// when it has been idle for gitx.BatchIdle, or at Close.
type Trees struct {
	Repo  gitx.Repo
	mu    sync.Mutex
	got   map[[2]string]*treeEntry
	batch *gitx.Batch
}

// Close stops the git process of the reads; a later read starts another.
func (t *Trees) Close() {
	t.mu.Lock()
	b := t.batch
	t.batch = nil
	t.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
}

type treeEntry struct {
	once  sync.Once
	files map[string][]byte
	modes map[string]string
	err   error
}

// ModeSymlink is git's mode of a symbolic link; its blob is the link text.
const ModeSymlink = "120000"

func (t *Trees) entry(ctx context.Context, rev, dir string) *treeEntry {
	t.mu.Lock()
	if t.got == nil {
		t.got = map[[2]string]*treeEntry{}
	}
	key := [2]string{rev, dir}
	e, ok := t.got[key]
	if !ok {
		e = &treeEntry{}
		t.got[key] = e
	}
	t.mu.Unlock()
	b := t.reader()
	e.once.Do(func() { e.files, e.modes, e.err = readTree(ctx, b, rev, dir) })
	return e
}

// readTree is gitx.Repo.ReadTree that keeps each file's git mode.
func readTree(ctx context.Context, b *gitx.Batch, rev, dir string) (map[string][]byte, map[string]string, error) {
	files, entries, err := b.ReadTree(ctx, rev, dir)
	if err != nil {
		return nil, nil, err
	}
	modes := make(map[string]string, len(entries))
	for _, e := range entries {
		modes[e.Path] = e.Mode
	}
	return files, modes, nil
}

// File reads one file at rev through the same git process as the folders;
// ok is false when rev has no file at path.
func (t *Trees) File(ctx context.Context, rev, path string) (data []byte, ok bool, err error) {
	return t.reader().ReadFile(ctx, rev, path)
}

// Has reports whether rev has path (a file or a folder), as git cat-file
// -e does, through the same git process as the folders.
func (t *Trees) Has(ctx context.Context, rev, path string) (bool, error) {
	_, ok, err := t.reader().Object(ctx, rev+":"+path)
	return ok, err
}

func (t *Trees) reader() *gitx.Batch {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.batch == nil {
		t.batch = t.Repo.Batch()
	}
	return t.batch
}

// Get returns the files under dir at rev, keyed by repository path. A
// symbolic link is there as its link text: see Symlinks.
func (t *Trees) Get(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	e := t.entry(ctx, rev, dir)
	return e.files, e.err
}

// GroupFiles returns the files of every folder that the group's loader
// searches (its root and config.Group.Search) at rev, by repository path.
// The map is the cached one when the group searches its root alone.
func (t *Trees) GroupFiles(ctx context.Context, rev string, g *config.Group) (map[string][]byte, error) {
	files, err := t.Get(ctx, rev, g.Root)
	if err != nil || len(g.Search) == 0 {
		return files, err
	}
	all := maps.Clone(files)
	for _, dir := range g.Search {
		if dir == g.Root {
			continue
		}
		more, err := t.Get(ctx, rev, dir)
		if err != nil {
			return nil, err
		}
		for p, data := range more {
			all[p] = data
		}
	}
	return all, nil
}

// Symlinks returns the symbolic links under dir at rev (git mode 120000),
// keyed by repository path, with their link text. Nothing follows them.
func (t *Trees) Symlinks(ctx context.Context, rev, dir string) (map[string]string, error) {
	e := t.entry(ctx, rev, dir)
	if e.err != nil {
		return nil, e.err
	}
	links := map[string]string{}
	for p, m := range e.modes {
		if m == ModeSymlink {
			links[p] = string(e.files[p])
		}
	}
	return links, nil
}
