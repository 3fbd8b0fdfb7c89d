package plan

import (
	"context"
	"sync"

	"github.com/formula-code/template-verify/internal/gitx"
)

// Trees reads the files under a folder at a commit once and keeps them, so
// that the plan and every check share one read per (commit, folder).
type Trees struct {
	Repo gitx.Repo
	mu   sync.Mutex
	got  map[[2]string]*treeEntry
}

type treeEntry struct {
	once  sync.Once
	files map[string][]byte
	err   error
}

// Get returns the files under dir at rev, keyed by repository path.
func (t *Trees) Get(ctx context.Context, rev, dir string) (map[string][]byte, error) {
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
	e.once.Do(func() { e.files, e.err = t.Repo.ReadTree(ctx, rev, dir) })
	return e.files, e.err
}
