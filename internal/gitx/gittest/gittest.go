// Package gittest builds real git repositories in temporary folders for
// tests, through the isolated git of package gitx.
package gittest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
)

// Repo is a git repository in a test's temporary folder.
type Repo struct {
	T    testing.TB
	Repo gitx.Repo
}

// New makes an empty repository with the branch main.
func New(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{T: t, Repo: gitx.Repo{Dir: t.TempDir()}}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Dir is the work tree.
func (r *Repo) Dir() string { return r.Repo.Dir }

// Git runs git and returns its trimmed stdout; an error fails the test.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	out, err := r.Repo.Run(context.Background(), args...)
	if err != nil {
		r.T.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (repository path -> content), making folders.
func (r *Repo) Write(files map[string]string) {
	r.T.Helper()
	for p, content := range files {
		full := filepath.Join(r.Repo.Dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.T.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.T.Fatal(err)
		}
	}
}

// Commit stages everything and commits; it returns the new sha.
func (r *Repo) Commit(msg string) string {
	r.T.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}
