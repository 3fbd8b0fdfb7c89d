package synccheck

import (
	"context"
	"os"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
)

// BenchmarkDiscover times discovery on a repository named by
// TV_SYNC_BENCH_REPO, from its branch main to TV_SYNC_BENCH_HEAD (default
// drift), with the default configuration (datasmith's template roots);
// the plan is built once, outside the timed loop. It
// is skipped without the variable: the tree is not part of this
// repository. README "Discovered copies" gives the figures.
//
// The figures there come from a tree of datasmith's size: 3,223 files, the
// count of datasmith's paths over its whole history (498 .py, 400 .json,
// 30 .yml, 20 .sh, 1 .toml, the rest .md, which discovery does not read),
// 7.6 MB. The Python files are cut from datasmith's own sources; the
// template tests/test.sh is datasmith 00a1bbe's (abridged) with a restore
// array; its copy is a Python tuple in another file; the head "drift" adds
// an item to the array only. The repository is packed (git gc).
func BenchmarkDiscover(b *testing.B) {
	dir := os.Getenv("TV_SYNC_BENCH_REPO")
	if dir == "" {
		b.Skip("TV_SYNC_BENCH_REPO is not set")
	}
	head := os.Getenv("TV_SYNC_BENCH_HEAD")
	if head == "" {
		head = "drift"
	}
	ctx := context.Background()
	cfg := config.Default()
	repo := gitx.Repo{Dir: dir}
	p, err := plan.Build(ctx, repo, cfg, "main", head)
	if err != nil {
		b.Fatal(err)
	}
	groups := 0
	for b.Loop() {
		d, err := discover(ctx, p, []*config.Config{cfg})
		if err != nil {
			b.Fatal(err)
		}
		groups = len(d.groups)
	}
	b.ReportMetric(float64(groups), "groups")
}
