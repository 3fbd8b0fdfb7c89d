// Package benchgen holds the second proof repository: benchgen, a small
// original repository that renders benchmark tasks from Jinja templates as
// datasmith does, with its own layout and names and no config file. The
// tests build it into a real git repository and verify each head as a pull
// request against main.
//
//	base/...           the full tree of the base commit
//	base.message       the message of the base commit
//	heads/NAME.patch   one head: its commit message, a blank line, then a
//	                   git diff (git apply skips the text before the diff)
//
// Every head is a branch of its name with one commit on top of main. A
// head is added with one patch file and one row of the table in
// benchgen_test.go.
package benchgen

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/internal/gitx"
)

//go:embed all:base base.message heads
var files embed.FS

// BaseBranch is the branch of the base commit.
const BaseBranch = "main"

// Built is the repository on disk.
type Built struct {
	Dir   string            // the work tree, with .git
	Base  string            // sha of the base commit
	Heads map[string]string // head name (also its branch) -> commit sha
}

// HeadNames returns the names of the heads, in name order.
func HeadNames() []string {
	entries, _ := fs.ReadDir(files, "heads")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".patch"); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Build writes the repository with every head into dir, which must not
// exist or be empty. gitx fixes the author and dates, so the shas are the
// same on every run.
func Build(ctx context.Context, dir string) (*Built, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("benchgen: %w", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		return nil, fmt.Errorf("benchgen: %s is not an empty folder (%v)", dir, err)
	}
	repo := gitx.Repo{Dir: dir}
	if _, err := repo.Run(ctx, "init", "-q", "-b", BaseBranch); err != nil {
		return nil, fmt.Errorf("benchgen: %w", err)
	}
	if err := writeTree(dir); err != nil {
		return nil, err
	}
	msg, err := files.ReadFile("base.message")
	if err != nil {
		return nil, fmt.Errorf("benchgen: %w", err)
	}
	base, err := commitAll(ctx, repo, msg)
	if err != nil {
		return nil, err
	}
	b := &Built{Dir: dir, Base: base, Heads: map[string]string{}}
	for _, name := range HeadNames() {
		patch, err := files.ReadFile("heads/" + name + ".patch")
		if err != nil {
			return nil, fmt.Errorf("benchgen head %s: %w", name, err)
		}
		message, _, ok := bytes.Cut(patch, []byte("\ndiff --git "))
		if !ok || len(bytes.TrimSpace(message)) == 0 {
			return nil, fmt.Errorf("benchgen head %s: heads/%s.patch needs a message, then a git diff", name, name)
		}
		if _, err := repo.Run(ctx, "checkout", "-q", "-b", name, base); err != nil {
			return nil, fmt.Errorf("benchgen head %s: %w", name, err)
		}
		if _, err := repo.RunInput(ctx, bytes.NewReader(patch), "apply", "--whitespace=nowarn", "-"); err != nil {
			return nil, fmt.Errorf("benchgen head %s: the patch does not apply: %w", name, err)
		}
		if b.Heads[name], err = commitAll(ctx, repo, message); err != nil {
			return nil, fmt.Errorf("benchgen head %s: %w", name, err)
		}
	}
	if _, err := repo.Run(ctx, "checkout", "-q", BaseBranch); err != nil {
		return nil, fmt.Errorf("benchgen: %w", err)
	}
	return b, nil
}

// writeTree copies the embedded base tree into dir; files ending in .sh
// get mode 0755, the others 0644.
func writeTree(dir string) error {
	return fs.WalkDir(files, "base", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("benchgen: %w", err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, "base"), "/")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return fmt.Errorf("benchgen: %w", err)
		}
		mode := os.FileMode(0o644)
		if path.Ext(p) == ".sh" {
			mode = 0o755
		}
		if err := os.WriteFile(dst, data, mode); err != nil {
			return fmt.Errorf("benchgen: %w", err)
		}
		return nil
	})
}

func commitAll(ctx context.Context, repo gitx.Repo, msg []byte) (string, error) {
	if _, err := repo.Run(ctx, "add", "-A"); err != nil {
		return "", fmt.Errorf("benchgen: %w", err)
	}
	if _, err := repo.RunInput(ctx, bytes.NewReader(msg), "commit", "-q", "--no-verify", "-F", "-"); err != nil {
		return "", fmt.Errorf("benchgen: %w", err)
	}
	return repo.Resolve(ctx, "HEAD")
}
