package restore

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/formula-code/template-verify/internal/fixture"
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

// TestRandomEditsApply applies many random sets to copies of the fixture:
// a set that does not apply would be reported as a broken scenario.
func TestRandomEditsApply(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	baseDir := filepath.Join(root, "base")
	if _, err := fixture.Init(ctx, baseDir, fixture.Project(), "base"); err != nil {
		t.Fatal(err)
	}
	ops := map[Op]int{}
	for i, sc := range RandomScenarios(fixture.Project(), 1, 60) {
		dir := filepath.Join(root, sc.Name)
		if err := fixture.Copy(ctx, baseDir, dir); err != nil {
			t.Fatal(err)
		}
		if err := Apply(ctx, dir, sc.Edits); err != nil {
			t.Errorf("set %d: %v\n%s", i+1, err, FormatEdits(sc.Edits))
		}
		for _, e := range sc.Edits {
			ops[e.Op]++
			if back, err := ParseEdit(e.String()); err != nil || back != e {
				t.Errorf("edit %s does not read back: %v", e, err)
			}
		}
	}
	for _, op := range []Op{OpWrite, OpAppend, OpDelete, OpChmod, OpSymlink, OpMove, OpAdd, OpCommit} {
		if ops[op] == 0 {
			t.Errorf("60 random sets never use %s", op)
		}
	}
}
