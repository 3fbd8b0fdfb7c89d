package examples

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/formula-code/template-verify/internal/gitx"
)

// The heads of the example, in the order HeadNames returns them.
const (
	// HeadGood adds the test-file patterns to the restore step, the config
	// and the prompt's rule line.
	HeadGood = "good"
	// HeadBad uses an undefined variable when run_pytest is false and
	// breaks bash syntax when run_pytest is true.
	HeadBad = "bad"
	// HeadRestoreFromHead restores from HEAD instead of the baseline.
	HeadRestoreFromHead = "bad-restore-from-head"
	// HeadRestoreSpaces word-splits the list of paths.
	HeadRestoreSpaces = "bad-restore-spaces"
	// HeadRestoreKeepsAdded never deletes files that the agent adds.
	HeadRestoreKeepsAdded = "bad-restore-keeps-added"
	// HeadRestoreNoBaseline restores against HEAD when the baseline sha
	// file is missing, instead of the task's base commit.
	HeadRestoreNoBaseline = "bad-restore-no-baseline"
	// HeadRestoreAborts counts the changed paths with grep -c before the
	// restore: under the script's set -euo pipefail the step stops when
	// the agent's tree is clean.
	HeadRestoreAborts = "bad-restore-aborts"
	// HeadRefactor sets the log folder once in test.sh: the rendered
	// output does not change.
	HeadRefactor = "refactor-same-output"
	// HeadFailingBase changes only the prompt, on top of a base whose
	// restore step already fails scenarios (HeadRestoreSpaces): its PR
	// base is that head, see BaseOf.
	HeadFailingBase = "prompt-on-failing-base"
)

// BaseBranch is the branch of the base commit.
const BaseBranch = "main"

const root = "datasmith-mini"

//go:embed all:datasmith-mini
var files embed.FS

// headNames lists the heads; a head with a ".base" file comes after the
// head it starts from.
var headNames = []string{
	HeadGood, HeadBad, HeadRestoreFromHead, HeadRestoreSpaces,
	HeadRestoreKeepsAdded, HeadRestoreNoBaseline, HeadRestoreAborts,
	HeadRefactor, HeadFailingBase,
}

// HeadNames returns the names of the heads in a fixed order.
func HeadNames() []string { return append([]string(nil), headNames...) }

// Built is an example repository on disk.
type Built struct {
	Dir   string            // the work tree, with .git
	Base  string            // sha of the base commit (branch main)
	Heads map[string]string // head name (also its branch) -> commit sha
	// Bases maps a head whose pull request targets another branch than
	// main (a ".base" file) to that branch's commit.
	Bases map[string]string
}

// BaseOf returns the sha a head's pull request targets: Base, or the head
// its ".base" file names.
func (b *Built) BaseOf(head string) string {
	if sha, ok := b.Bases[head]; ok {
		return sha
	}
	return b.Base
}

// BaseBranchOf returns the branch a head's pull request targets: main, or
// the head its ".base" file names (each head is a branch of its name).
func BaseBranchOf(head string) string {
	if from, ok, err := readFirstLine(root + "/heads/" + head + ".base"); err == nil && ok {
		return from
	}
	return BaseBranch
}

// Build writes the example as a git repository into dir, which must be
// empty or missing; a relative dir is taken from the working directory,
// and Built.Dir is absolute. The shas are the same on every run: gitx fixes the
// author, committer and dates. The heads are computed in memory and
// written with one git fast-import (importCommits); when a patch is more
// than text hunks, git applies and commits each head instead
// (buildWithGit), with the same result.
func Build(ctx context.Context, dir string) (*Built, error) {
	// git runs in dir and is given paths under it: a relative dir would
	// be taken twice ("ex/ex/.git").
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	commits, err := exampleCommits(headNames)
	if errors.Is(err, errPatchNotPlain) {
		return buildWithGit(ctx, dir)
	}
	if err != nil {
		return nil, err
	}
	shas, err := importCommits(ctx, dir, commits)
	if err != nil {
		return nil, err
	}
	built := &Built{Dir: dir, Base: shas[0], Heads: map[string]string{}, Bases: map[string]string{}}
	for i, c := range commits[1:] {
		built.Heads[c.branch] = shas[i+1]
		if c.parent != 0 {
			built.Bases[c.branch] = shas[c.parent]
		}
	}
	return built, nil
}

// buildWithGit is Build with git apply and git commit for every head.
func buildWithGit(ctx context.Context, dir string) (*Built, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	repo := gitx.Repo{Dir: dir}
	if _, err := repo.Run(ctx, "init", "-q", "-b", BaseBranch); err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	if err := writeTree(dir, root+"/base"); err != nil {
		return nil, err
	}
	base, err := commitAll(ctx, repo, root+"/base.message")
	if err != nil {
		return nil, err
	}
	built := &Built{Dir: dir, Base: base, Heads: map[string]string{}, Bases: map[string]string{}}
	if err := built.addHeads(ctx, headNames...); err != nil {
		return nil, err
	}
	return built, nil
}

// addHeads commits each named head of the example folder (heads/NAME.patch
// and .from, see applyHead) on its own branch, in order, from the head its
// .base file names (built before it) or from the base commit, and checks
// out the base branch at the end.
func (b *Built) addHeads(ctx context.Context, names ...string) error {
	repo := gitx.Repo{Dir: b.Dir}
	for _, name := range names {
		start := b.Base
		if from := BaseBranchOf(name); from != BaseBranch {
			sha, ok := b.Heads[from]
			if !ok {
				return fmt.Errorf("example head %s: its .base names %s, which is not built before it", name, from)
			}
			start = sha
			b.Bases[name] = sha
		}
		if _, err := repo.Run(ctx, "checkout", "-q", "-b", name, start); err != nil {
			return fmt.Errorf("example head %s: %w", name, err)
		}
		if err := applyHead(ctx, repo, name); err != nil {
			return err
		}
		sha, err := commitAll(ctx, repo, root+"/heads/"+name+".message")
		if err != nil {
			return fmt.Errorf("example head %s: %w", name, err)
		}
		b.Heads[name] = sha
	}
	if _, err := repo.Run(ctx, "checkout", "-q", BaseBranch); err != nil {
		return fmt.Errorf("example: %w", err)
	}
	return nil
}

// prepareDir creates dir, or checks that it is an empty folder.
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("example: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("example: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("example: %s is not empty", dir)
	}
	return nil
}

// applyHead applies the patches of head name (headPatches) to the work
// tree with git apply.
func applyHead(ctx context.Context, repo gitx.Repo, name string) error {
	return headPatches(name, 0, func(file string, patch []byte) error {
		if _, err := repo.RunInput(ctx, bytes.NewReader(patch), "apply", "--whitespace=nowarn", "-"); err != nil {
			return fmt.Errorf("%s does not apply: %w", file, err)
		}
		return nil
	})
}

// headPatches calls apply with each patch of head name (heads/NAME.patch,
// a git diff) in the order they apply: a ".from" head's patches first,
// so a head can be a small change on top of another one. depth stops a
// cycle of ".from".
func headPatches(name string, depth int, apply func(file string, patch []byte) error) error {
	if depth > len(headNames) {
		return fmt.Errorf("example head %s: the .from files form a cycle", name)
	}
	prefix := root + "/heads/" + name
	if from, ok, err := readFirstLine(prefix + ".from"); err != nil {
		return err
	} else if ok {
		if err := headPatches(from, depth+1, apply); err != nil {
			return err
		}
	}
	patch, err := files.ReadFile(prefix + ".patch")
	if err != nil {
		return fmt.Errorf("example head %s: %w", name, err)
	}
	if err := apply(prefix+".patch", patch); err != nil {
		return fmt.Errorf("example head %s: %w", name, err)
	}
	return nil
}

// writeTree copies the embedded folder src into dir. Files ending in .sh
// get mode 0755, the others 0644.
func writeTree(dir, src string) error {
	return fs.WalkDir(files, src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("example: %w", err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, src), "/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return fmt.Errorf("example: %w", err)
			}
			return nil
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return fmt.Errorf("example: %w", err)
		}
		mode := fileMode(rel)
		if err := os.WriteFile(dst, data, mode); err != nil {
			return fmt.Errorf("example: %w", err)
		}
		// WriteFile keeps the mode of an existing file and applies the umask.
		if err := os.Chmod(dst, mode); err != nil {
			return fmt.Errorf("example: %w", err)
		}
		return nil
	})
}

// fileMode returns the mode of a file of the example in git terms.
func fileMode(rel string) os.FileMode {
	if path.Ext(rel) == ".sh" {
		return 0o755
	}
	return 0o644
}

// commitAll commits the whole work tree with the message in the embedded
// file msgFile and returns the new commit's sha.
func commitAll(ctx context.Context, repo gitx.Repo, msgFile string) (string, error) {
	msg, err := files.ReadFile(msgFile)
	if err != nil {
		return "", fmt.Errorf("example: commit message: %w", err)
	}
	if len(bytes.TrimSpace(msg)) == 0 {
		return "", fmt.Errorf("example: %s is empty", msgFile)
	}
	if _, err := repo.Run(ctx, "add", "-A"); err != nil {
		return "", fmt.Errorf("example: %w", err)
	}
	if _, err := repo.RunInput(ctx, bytes.NewReader(msg), "commit", "-q", "--no-verify", "-F", "-"); err != nil {
		return "", fmt.Errorf("example: %w", err)
	}
	return repo.Resolve(ctx, "HEAD")
}

// readFirstLine returns the first line of an embedded file; ok is false when
// the file does not exist.
func readFirstLine(name string) (line string, ok bool, err error) {
	data, err := files.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("example: %w", err)
	}
	line, _, _ = strings.Cut(string(data), "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return "", false, fmt.Errorf("example: %s is empty", name)
	}
	return line, true, nil
}
