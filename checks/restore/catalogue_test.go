package restore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/fixture"
)

// noEffect are the scenarios whose edits leave the work tree as the base:
// the model must discard nothing in them.
var noEffect = map[string]bool{"no-change": true, "edit-then-revert": true, "ignored-file": true}

func TestCatalogue(t *testing.T) {
	cat := Catalogue()
	if len(cat) < 24 {
		t.Fatalf("%d scenarios, the issue asks for at least 24", len(cat))
	}
	names := map[string]bool{}
	slugs := map[string]bool{}
	for _, sc := range cat {
		if names[sc.Name] {
			t.Errorf("name %s is used twice", sc.Name)
		}
		names[sc.Name] = true
		if slugs[slug(sc.Name)] {
			t.Errorf("folder name %s is used twice", slug(sc.Name))
		}
		slugs[slug(sc.Name)] = true
		if sc.Name != strings.ToLower(sc.Name) || strings.ContainsAny(sc.Name, " _") {
			t.Errorf("name %q is not kebab case", sc.Name)
		}
	}
	// The scenarios that the issue names.
	for _, want := range []string{
		"edit-test-file", "add-test-file", "delete-test-file", "edit-root-conftest", "edit-nested-conftest",
		"add-github-workflow", "delete-benchmark", "add-benchmark-with-space", "edit-asv-conf", "edit-snapshot",
		"non-ascii-name", "mode-change", "file-to-symlink", "staged-edit", "unstaged-edit", "untracked-file",
		"committed-edit", "several-commits", "unrelated-checkout", "no-baseline-file", "no-change", "fix-plus-tampering",
	} {
		if !names[want] {
			t.Errorf("no scenario %s", want)
		}
	}
}

// TestCatalogueScenariosChangeTheTree applies every scenario and checks
// that it does what its name says at the level of the model: it applies,
// it changes the work tree (unless it is meant not to), and the fix in
// src/ survives the model.
func TestCatalogueScenariosChangeTheTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	baseDir := filepath.Join(root, "base")
	b, err := fixture.Build(baseDir, fixture.Project(), "base")
	if err != nil {
		t.Fatal(err)
	}
	base, err := fixture.ReadCommit(ctx, baseDir, b.SHA)
	if err != nil {
		t.Fatal(err)
	}
	p := defaultPolicy(t)
	for _, sc := range Catalogue() {
		t.Run(sc.Name, func(t *testing.T) {
			dir := filepath.Join(root, slug(sc.Name))
			if err := b.Make(ctx, dir); err != nil {
				t.Fatal(err)
			}
			if err := Apply(ctx, dir, sc.Edits); err != nil {
				t.Fatal(err)
			}
			work, err := fixture.ReadWork(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			changed := treeDiff(base, work) != ""
			if changed == noEffect[sc.Name] {
				t.Errorf("work tree changed: %v (%s)", changed, treeDiff(base, work))
			}
			ran := !sc.NoBaseline && descends(dir, b.SHA)
			exp := p.Expect(base, work, ran, "")
			if noEffect[sc.Name] && len(exp.Discarded) > 0 {
				t.Errorf("discards %q", exp.Discarded)
			}
			if w, ok := work["src/pkg/core.py"]; ok && string(w.Data) == fixCore && string(exp.Tree["src/pkg/core.py"].Data) != fixCore {
				t.Error("the model loses the fix")
			}
			if sc.Name == "unrelated-checkout" && ran {
				t.Error("an orphan history descends from the base")
			}
		})
	}
}
