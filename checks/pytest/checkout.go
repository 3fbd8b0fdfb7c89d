package pytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/formula-code/template-verify/internal/gitx"
)

// checkouts checks out the head and the merge base into separate folders,
// each once and only when needed. The checkouts hold no .git folder, so
// tests cannot change the verified repository. They are checkouts, not
// git archive exports: a .gitattributes of the head cannot mark a failing
// test file export-ignore and so leave it out of the suite.
type checkouts struct {
	repo       gitx.Repo
	head, base string // commits
	dir        string

	headOnce, baseOnce sync.Once
	headDir, baseDir   string
	headErr, baseErr   error
}

// Head returns the folder with the head tree.
func (c *checkouts) Head(ctx context.Context) (string, error) {
	c.headOnce.Do(func() { c.headDir, c.headErr = c.export(ctx, "head", c.head) })
	return c.headDir, c.headErr
}

// Base returns the folder with the merge-base tree.
func (c *checkouts) Base(ctx context.Context) (string, error) {
	c.baseOnce.Do(func() { c.baseDir, c.baseErr = c.export(ctx, "base", c.base) })
	return c.baseDir, c.baseErr
}

func (c *checkouts) export(ctx context.Context, name, rev string) (string, error) {
	d := filepath.Join(c.dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("make %s folder: %w", name, err)
	}
	if err := c.repo.Checkout(ctx, rev, d); err != nil {
		return "", fmt.Errorf("check out %s %s: %w", name, shortSHA(rev), err)
	}
	return d, nil
}
