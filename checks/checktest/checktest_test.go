package checktest

import (
	"context"
	"slices"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestPR: the head overlay writes, deletes and links files, each side has
// its config, and the plan sees the change from main to pr.
func TestPR(t *testing.T) {
	t.Parallel()
	const cfg = "version: 1\ngroups:\n  - {name: t, root: tpl, templates: [{path: '**'}]}\n"
	in := PR(t, cfg, cfg+"pytest: null\n",
		map[string]string{"tpl/a.sh": "a\n", "tpl/gone.sh": "x\n", "tpl/real.sh": "r\n"},
		map[string]string{"tpl/a.sh": "b\n", "tpl/gone.sh": Deleted, "tpl/link.sh": Link("real.sh")})
	if in.BaseConfig == nil || in.BaseConfig.Pytest == nil || in.Config.Pytest != nil {
		t.Errorf("configs: base pytest %v, head pytest %v; want the base's default block and the head's null", in.BaseConfig.Pytest, in.Config.Pytest)
	}
	changed := in.Plan.ChangedPaths()
	for _, p := range []string{config.Path, "tpl/a.sh", "tpl/gone.sh", "tpl/link.sh"} {
		if !slices.Contains(changed, p) {
			t.Errorf("changed paths %q lack %s", changed, p)
		}
	}
	links, err := in.Plan.Trees.Symlinks(context.Background(), in.Plan.Head, "tpl")
	if err != nil {
		t.Fatal(err)
	}
	if links["tpl/link.sh"] != "real.sh" {
		t.Errorf("links at head %v, want tpl/link.sh -> real.sh", links)
	}
	files, err := in.Plan.Trees.Get(context.Background(), in.Plan.Head, "tpl")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["tpl/gone.sh"]; ok || string(files["tpl/a.sh"]) != "b\n" {
		t.Errorf("files at head: %v", files)
	}
}
