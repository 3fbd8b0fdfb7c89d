package examples

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildImportsWhatGitCommits: the example Build writes with one git
// fast-import has the commits (so the shas), branches, index and work
// tree that git apply and git commit give for every head, and the demo's
// heads need no git apply.
func TestBuildImportsWhatGitCommits(t *testing.T) {
	if _, err := exampleCommits(headNames); err != nil {
		t.Fatalf("the demo's heads must be computed in memory: %v", err)
	}
	ctx := context.Background()
	imported, err := Build(ctx, filepath.Join(t.TempDir(), "imported"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := buildWithGit(ctx, filepath.Join(t.TempDir(), "committed"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(committed, imported, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Dir" }, cmp.Ignore())); diff != "" {
		t.Fatalf("Build differs from git apply and commit (-git +Build):\n%s", diff)
	}
	for _, args := range [][]string{
		{"for-each-ref", "--format=%(refname) %(objectname)"},
		{"symbolic-ref", "HEAD"},
		{"ls-files", "-s"},
		{"status", "--porcelain", "--untracked-files=all"},
		{"log", "--all", "--format=%H %P %an <%ae> %ad %cd %s"},
	} {
		want, got := git(t, committed.Dir, args...), git(t, imported.Dir, args...)
		if want != got {
			t.Errorf("git %v differs:\n git commit: %s\n Build: %s", args, want, got)
		}
	}
	// The work trees, files and modes.
	if want, got := treeListing(t, committed.Dir), treeListing(t, imported.Dir); want != got {
		t.Errorf("work trees differ:\n%s\n%s", want, got)
	}
}

// treeListing lists the work tree's files with their modes and hashes.
func treeListing(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("bash", "-c", `cd "$1" && find . -path ./.git -prune -o -type f -printf '%m %p\n' | sort && git hash-object $(find . -path ./.git -prune -o -type f -print | sort)`, "bash", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return string(out)
}
