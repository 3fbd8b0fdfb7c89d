package restore

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/gitx"
)

func TestRandomEditsRepeat(t *testing.T) {
	base := fixture.Project()
	a := RandomScenarios(base, 1, 20)
	b := RandomScenarios(base, 1, 20)
	c := RandomScenarios(base, 2, 20)
	same := 0
	for i := range a {
		if !slices.Equal(a[i].Edits, b[i].Edits) {
			t.Errorf("set %d differs between two calls with one seed", i)
		}
		if slices.Equal(a[i].Edits, c[i].Edits) {
			same++
		}
		if n := len(a[i].Edits); n < 1 || n > 6 {
			t.Errorf("set %d has %d edits", i, n)
		}
	}
	if same > 2 {
		t.Errorf("%d of 20 sets are the same for seeds 1 and 2", same)
	}
	// Set i does not depend on how many sets are asked for.
	if !slices.Equal(RandomEdits(base, 1, 7), a[7].Edits) {
		t.Error("set 8 changes with the count")
	}
}

// TestRandomEditsApply applies many random sets, and the catalogue, to
// copies of the fixture: a set that does not apply would be reported as a
// broken scenario. The git operations (add, commit, orphan) are made in
// Go; each set is also applied with the git CLI to another copy, and the
// two repositories must agree: the same HEAD (the same commit shas), the
// same index entries, the same answer to "does HEAD descend from the
// base", and git finds nothing wrong in the objects Go wrote.
// randomEditSets is how many random edit sets TestRandomEditsApply holds
// to the git CLI besides the catalogue. 20 keep the race run of CI short;
// run with -random-edit-sets 500 after a change to the edits in Go.
var randomEditSets = flag.Int("random-edit-sets", 20, "random edit sets that TestRandomEditsApply compares with git")

func TestRandomEditsApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	baseDir := filepath.Join(root, "base")
	b, err := fixture.Build(baseDir, fixture.Project(), "base")
	if err != nil {
		t.Fatal(err)
	}
	sha := b.SHA
	ops := map[Op]int{}
	sets := append(RandomScenarios(fixture.Project(), 1, *randomEditSets), Catalogue()...)
	for i, sc := range sets {
		dir := filepath.Join(root, slug(sc.Name))
		if err := b.Make(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if err := Apply(ctx, dir, sc.Edits); err != nil {
			t.Errorf("set %d: %v\n%s", i+1, err, FormatEdits(sc.Edits))
			continue
		}
		viaGit := dir + "-git"
		if err := b.Make(ctx, viaGit); err != nil {
			t.Fatal(err)
		}
		for _, e := range sc.Edits {
			if err := gitApply(ctx, viaGit, e); err != nil {
				t.Fatalf("%s: git: %v", sc.Name, err)
			}
		}
		if got, want := repoState(t, dir), repoState(t, viaGit); got != want {
			t.Errorf("%s: after the edits in Go\n%s\nwith git\n%s\nedits:\n%s", sc.Name, got, want, FormatEdits(sc.Edits))
		}
		gitAnc, err := gitx.Repo{Dir: viaGit}.IsAncestor(ctx, sha, "HEAD")
		if got := descends(dir, sha); got != (err == nil && gitAnc) {
			t.Errorf("%s: descends %v, git says %v (%v)", sc.Name, got, gitAnc, err)
		}
		if out, err := (gitx.Repo{Dir: dir}).Run(ctx, "fsck", "--strict", "--no-dangling"); err != nil {
			t.Errorf("%s: git fsck: %v\n%s", sc.Name, err, out)
		}
		for _, e := range sc.Edits {
			ops[e.Op]++
			if back, err := ParseEdit(e.String()); err != nil || back != e {
				t.Errorf("edit %s does not read back: %v", e, err)
			}
		}
	}
	for _, op := range []Op{OpWrite, OpAppend, OpDelete, OpChmod, OpSymlink, OpMove, OpAdd, OpCommit, OpOrphan} {
		if ops[op] == 0 {
			t.Errorf("the sets never use %s", op)
		}
	}
}

// gitApply makes one edit as an agent would: file edits as Apply makes
// them, git operations with the git CLI.
func gitApply(ctx context.Context, dir string, e Edit) error {
	repo := gitx.Repo{Dir: dir}
	var err error
	switch e.Op {
	case OpAdd:
		_, err = repo.Run(ctx, "add", "-A", "--", e.Path)
	case OpCommit:
		_, err = repo.Run(ctx, "commit", "-q", "--no-verify", "--allow-empty", "-m", e.Path)
	case OpOrphan:
		_, err = repo.Run(ctx, "checkout", "-q", "--orphan", e.Path)
	default:
		err = apply(dir, e)
	}
	return err
}

// repoState is HEAD, the commit it names and the index entries of the
// repository at dir, as git reads them.
func repoState(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	repo := gitx.Repo{Dir: dir}
	ref, err := repo.Run(ctx, "symbolic-ref", "-q", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.Run(ctx, "rev-parse", "-q", "--verify", "HEAD") // empty: unborn
	index, err := repo.Run(ctx, "ls-files", "-s")
	if err != nil {
		t.Fatal(err)
	}
	log, _ := repo.Run(ctx, "log", "--format=%H %P %s", "HEAD")
	return fmt.Sprintf("HEAD %s at %s%s%s", strings.TrimSpace(string(ref)), head, log, index)
}
