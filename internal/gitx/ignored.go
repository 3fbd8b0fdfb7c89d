package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// IgnoredFiles lists the untracked files of the work tree at workTree that
// its .gitignore files exclude, as `git ls-files --others --ignored
// --exclude-standard` does, without reading anything of the repository
// there but the index given as data.
//
// The work tree may have been written by code from a pull request, so its
// .git folder is never used: its config can name commands (core.fsmonitor,
// hooks, filters, an included config file), .git can be a file that points
// anywhere, and its index can be a FIFO. Instead git runs with a fresh git
// folder of its own in a temporary folder, holding only a copy of index
// (nil: no index, every file is untracked), no config, and the isolated
// environment of Env; every setting that could start a command is pinned
// on the command line. Only the .gitignore files of the work tree count
// (not .git/info/exclude, not core.excludesFile). git does not follow a
// symlinked .gitignore (since git 2.32) nor a symlinked folder.
//
// index is untrusted data; git only parses it. An index git cannot read
// (a split index, a corrupt file) gives an error.
func IgnoredFiles(ctx context.Context, workTree string, index []byte) ([]string, error) {
	gitDir, err := os.MkdirTemp("", "template-verify-git-")
	if err != nil {
		return nil, fmt.Errorf("ignored files: %w", err)
	}
	defer os.RemoveAll(gitDir)
	for _, d := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(gitDir, d), 0o700); err != nil {
			return nil, fmt.Errorf("ignored files: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
		return nil, fmt.Errorf("ignored files: %w", err)
	}
	if index != nil {
		if err := os.WriteFile(filepath.Join(gitDir, "index"), index, 0o600); err != nil {
			return nil, fmt.Errorf("ignored files: %w", err)
		}
	}
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard"}
	full := append([]string{
		"--git-dir=" + gitDir, "--work-tree=" + workTree,
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "core.untrackedCache=false",
		"-c", "core.excludesFile=/dev/null",
		"-c", "core.quotePath=false",
		"-c", "core.symlinks=true",
		"-c", "index.sparse=false",
	}, args...)
	// git runs in its own folder: the work tree is named, never entered.
	out, err := run(ctx, gitDir, nil, args, full)
	if err != nil {
		return nil, fmt.Errorf("ignored files of %s: %w", workTree, err)
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	return paths, nil
}
