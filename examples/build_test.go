package examples

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
)

func TestBuildIsDeterministic(t *testing.T) {
	a := example(t)
	b, err := Build(context.Background(), filepath.Join(t.TempDir(), "missing", "dir"))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if a.Base != b.Base {
		t.Errorf("base sha differs between builds: %s and %s", a.Base, b.Base)
	}
	for _, h := range HeadNames() {
		if a.Heads[h] == "" || a.Heads[h] != b.Heads[h] {
			t.Errorf("head %s: shas %q and %q", h, a.Heads[h], b.Heads[h])
		}
	}
	if len(a.Heads) != len(HeadNames()) {
		t.Errorf("Build made %d heads, want %d", len(a.Heads), len(HeadNames()))
	}
}

func TestBuildRefusesAFolderThatIsNotEmpty(t *testing.T) {
	dir := t.TempDir()
	if _, err := Build(context.Background(), dir); err != nil {
		t.Fatalf("first Build: %v", err)
	}
	_, err := Build(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("second Build into the same folder: err = %v, want a 'not empty' error", err)
	}
}

func TestHeadsAreBranchesOnBase(t *testing.T) {
	b := example(t)
	if got := git(t, b.Dir, "symbolic-ref", "HEAD"); got != "refs/heads/"+BaseBranch {
		t.Errorf("checked-out branch = %s, want %s", got, BaseBranch)
	}
	if got := git(t, b.Dir, "rev-parse", BaseBranch); got != b.Base {
		t.Errorf("%s = %s, want base %s", BaseBranch, got, b.Base)
	}
	if st := git(t, b.Dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("work tree is not clean:\n%s", st)
	}
	for _, h := range HeadNames() {
		if got := git(t, b.Dir, "rev-parse", "refs/heads/"+h); got != b.Heads[h] {
			t.Errorf("branch %s = %s, want %s", h, got, b.Heads[h])
		}
		// "rev-list --parents -n 1" prints the commit and its parents.
		if got := strings.Fields(git(t, b.Dir, "rev-list", "--parents", "-n", "1", b.Heads[h])); !slices.Equal(got, []string{b.Heads[h], b.BaseOf(h)}) {
			t.Errorf("head %s: commit and parents = %v, want one parent %s", h, got, b.BaseOf(h))
		}
	}
}

// goodFiles are the files the good head changes. The pytest-runner helper
// may also change the runner in the good head; it is allowed, not required.
var goodFiles = []string{
	".github/template-verify.yml",
	"src/datasmith/github/templates/final.md.j2",
	harborRoot + "/environment/restore_paths.inc",
	testSh,
	"tests/test_templates.py",
}

func TestHeadDiffs(t *testing.T) {
	b := example(t)
	changed := func(from, to string) []string {
		out := git(t, b.Dir, "diff", "--name-only", "--no-renames", from, to)
		var files []string
		for _, f := range strings.Split(out, "\n") {
			if f != "" && f != runnerPy {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		return files
	}
	want := slices.Sorted(slices.Values(goodFiles))
	tests := []struct {
		head, from string
		want       []string
	}{
		{HeadGood, b.Base, want},
		{HeadBad, b.Base, []string{testSh}},
		{HeadRestoreFromHead, b.Base, want},
		{HeadRestoreFromHead, b.Heads[HeadGood], []string{testSh}},
		{HeadRestoreSpaces, b.Heads[HeadGood], []string{testSh}},
		{HeadRestoreKeepsAdded, b.Heads[HeadGood], []string{testSh}},
		{HeadRestoreNoBaseline, b.Heads[HeadGood], []string{testSh}},
		{HeadRestoreAborts, b.Heads[HeadGood], []string{testSh}},
		{HeadRefactor, b.Base, []string{testSh}},
		{HeadFailingBase, b.BaseOf(HeadFailingBase), []string{"src/datasmith/github/templates/final.md.j2"}},
	}
	if b.BaseOf(HeadFailingBase) != b.Heads[HeadRestoreSpaces] || BaseBranchOf(HeadFailingBase) != HeadRestoreSpaces {
		t.Errorf("%s targets %s (%s), want %s", HeadFailingBase, b.BaseOf(HeadFailingBase), BaseBranchOf(HeadFailingBase), HeadRestoreSpaces)
	}
	for _, tc := range tests {
		if got := changed(tc.from, b.Heads[tc.head]); !slices.Equal(got, tc.want) {
			t.Errorf("git diff %s..%s: %v, want %v", tc.from[:8], tc.head, got, tc.want)
		}
	}
}

func TestShellScriptsAreExecutable(t *testing.T) {
	b := example(t)
	repo := gitx.Repo{Dir: b.Dir}
	for _, r := range revs(b) {
		entries, err := repo.ListTree(context.Background(), r[1], "")
		if err != nil {
			t.Fatal(err)
		}
		modes := map[string]string{}
		for _, e := range entries {
			modes[e.Path] = e.Mode
			want := "100644"
			if strings.HasSuffix(e.Path, ".sh") {
				want = "100755"
			}
			if e.Mode != want {
				t.Errorf("%s: %s has mode %s, want %s", r[0], e.Path, e.Mode, want)
			}
		}
		for _, p := range []string{testSh, setupSh} {
			if modes[p] != "100755" {
				t.Errorf("%s: %s has mode %q, want 100755", r[0], p, modes[p])
			}
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		if _, err := Build(context.Background(), filepath.Join(b.TempDir(), "repo")); err != nil {
			b.Fatal(err)
		}
	}
}
