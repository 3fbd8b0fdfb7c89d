package plan_test

import (
	"context"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/plan"
)

// TestTreesReadsFilesAndFolders: Get, File and Has answer as git does,
// before and after Close (a read after Close starts another process).
func TestTreesReadsFilesAndFolders(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"tpl/a.sh": "a\n", "tpl/sub/b.j2": "b", "other.txt": "o"})
	sha := r.Commit("c")
	ctx := context.Background()
	trees := &plan.Trees{Repo: r.Repo}
	for round := 0; round < 2; round++ {
		files, err := trees.Get(ctx, sha, "tpl")
		if err != nil || len(files) != 2 || string(files["tpl/sub/b.j2"]) != "b" {
			t.Fatalf("Get: %q %v", files, err)
		}
		if data, ok, err := trees.File(ctx, sha, "other.txt"); err != nil || !ok || string(data) != "o" {
			t.Errorf("File: %q %v %v", data, ok, err)
		}
		if _, ok, err := trees.File(ctx, sha, "missing"); err != nil || ok {
			t.Errorf("File of a missing path: %v %v", ok, err)
		}
		for p, want := range map[string]bool{"tpl/a.sh": true, "tpl/sub": true, "tpl/missing": false, "tpl/a.sh/x": false} {
			if got, err := trees.Has(ctx, sha, p); err != nil || got != want {
				t.Errorf("Has(%q) = %v %v, want %v", p, got, err, want)
			}
		}
		trees.Close()
	}
}
