package gitx_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

// TestCheckoutIgnoresExportAttributes: the tree's .gitattributes (from a
// pull request) cannot leave files out of a checkout (export-ignore) or
// change their content (export-subst), as they can with git archive.
func TestCheckoutIgnoresExportAttributes(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		".gitattributes":       "tests/test_hidden.py export-ignore\nsubst.txt export-subst\n",
		"tests/test_hidden.py": "def test_x():\n    assert False\n",
		"subst.txt":            "$Format:%H$\n",
		"run.sh":               "#!/bin/sh\n",
	})
	if err := os.Chmod(filepath.Join(r.Dir(), "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("subst.txt", filepath.Join(r.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	sha := r.Commit("c")
	indexBefore, err := os.ReadFile(filepath.Join(r.Dir(), ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := r.Repo.Checkout(context.Background(), sha, out); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"tests/test_hidden.py": "def test_x():\n    assert False\n", "subst.txt": "$Format:%H$\n"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if info, err := os.Stat(filepath.Join(out, "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh is not executable: %v %v", info, err)
	}
	if target, err := os.Readlink(filepath.Join(out, "link")); err != nil || target != "subst.txt" {
		t.Errorf("link: %q %v", target, err)
	}
	if _, err := os.Lstat(filepath.Join(out, ".git")); err == nil {
		t.Error("the checkout has a .git")
	}
	indexAfter, err := os.ReadFile(filepath.Join(r.Dir(), ".git", "index"))
	if err != nil || !slices.Equal(indexBefore, indexAfter) {
		t.Errorf("the repository's index changed: %v", err)
	}
	if err := r.Repo.Checkout(context.Background(), "no-such-rev", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("unknown revision: %v", err)
	}
}

// TestIgnoredFilesReadsNoRepositoryConfig: the ignored set comes from the
// work tree's .gitignore files and the index given, never from the
// repository's .git: its info/exclude, its config (which could name a
// fsmonitor command or core.excludesFile) are not read.
func TestIgnoredFilesReadsNoRepositoryConfig(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{".gitignore": "*.pyc\n", "tracked.pyc": "t\n", "a.py": "a\n"})
	r.Git("add", "-f", "tracked.pyc")
	r.Commit("c")
	r.Write(map[string]string{"new.pyc": "n\n", "hidden.py": "h\n", "sub/x.pyc": "x\n"})
	outside := t.TempDir()
	door := filepath.Join(r.Dir(), ".git", "door.sh")
	if err := os.WriteFile(door, []byte("#!/bin/sh\ntouch "+outside+"/marker\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir(), ".git", "extra-excludes"), []byte("hidden.py\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("config", "core.fsmonitor", door)
	r.Git("config", "core.excludesFile", filepath.Join(r.Dir(), ".git", "extra-excludes"))
	if err := os.MkdirAll(filepath.Join(r.Dir(), ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir(), ".git", "info", "exclude"), []byte("a.py\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(r.Dir(), ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := gitx.IgnoredFiles(context.Background(), r.Dir(), index)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"new.pyc", "sub/x.pyc"}; !slices.Equal(got, want) {
		t.Errorf("ignored %q, want %q", got, want)
	}
	// Without an index every file is untracked, so a tracked file that
	// .gitignore names counts as ignored.
	got, err = gitx.IgnoredFiles(context.Background(), r.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"new.pyc", "sub/x.pyc", "tracked.pyc"}; !slices.Equal(got, want) {
		t.Errorf("without an index: ignored %q, want %q", got, want)
	}
	if _, err := os.Lstat(filepath.Join(outside, "marker")); err == nil {
		t.Error("the repository's fsmonitor command ran")
	}
	if _, err := gitx.IgnoredFiles(context.Background(), r.Dir(), []byte("not an index")); err == nil {
		t.Error("a broken index gives no error")
	}
}
