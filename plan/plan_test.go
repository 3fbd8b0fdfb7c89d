package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

func newRepo(t *testing.T) *gittest.Repo { return gittest.New(t) }

func testConfig() *config.Config {
	return &config.Config{Groups: []config.Group{
		{Name: "harbor", Root: "tpl", Templates: []config.Template{{Path: "**"}}, Exclude: []string{"**/*.inc"}},
		{Name: "prompts", Root: "prompts", Templates: []config.Template{{Path: "**/*.j2"}}},
	}}
}

func TestBuildSelectsChangedTemplates(t *testing.T) {
	r := newRepo(t)
	r.Write(map[string]string{
		"tpl/tests/test.sh":     "echo {{ x }}\n{% include \"parts/restore.inc\" %}\n",
		"tpl/parts/restore.inc": "restore\n",
		"tpl/old name.sh":       "old\n",
		"tpl/gone.sh":           "gone\n",
		"tpl/Dockerfile":        "FROM {{ img }}\n",
		"prompts/final.md.j2":   "hi\n",
		"prompts/notes.txt":     "not a template\n",
		"src/app.py":            "x = 1\n",
	})
	base := r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(map[string]string{
		"tpl/parts/restore.inc": "restore more\n",
		"tpl/new file.sh":       "new {{ y }}\n",
		"tpl/Dockerfile":        "FROM {{ img }}\nRUN true\n",
		"prompts/notes.txt":     "still not a template\n",
		"src/app.py":            "x = 2\n",
	})
	r.Git("mv", "tpl/old name.sh", "tpl/renamed.sh")
	r.Git("rm", "-q", "tpl/gone.sh")
	head := r.Commit("head")

	p, err := Build(context.Background(), r.Repo, testConfig(), "main", "pr")
	if err != nil {
		t.Fatal(err)
	}
	if p.Base != base || p.Head != head || p.MergeBase != base {
		t.Errorf("shas: base %s head %s mb %s", p.Base, p.Head, p.MergeBase)
	}
	want := []Template{
		{"harbor", "tpl/Dockerfile", "tpl/Dockerfile", "Dockerfile", "Dockerfile", Modified, nil},
		{"harbor", "tpl/gone.sh", "tpl/gone.sh", "gone.sh", "gone.sh", Deleted, nil},
		{"harbor", "tpl/new file.sh", "tpl/new file.sh", "new file.sh", "new file.sh", Added, nil},
		{"harbor", "tpl/renamed.sh", "tpl/old name.sh", "renamed.sh", "old name.sh", Renamed, nil},
		{"harbor", "tpl/tests/test.sh", "tpl/tests/test.sh", "tests/test.sh", "tests/test.sh", Included, []string{"parts/restore.inc"}},
	}
	if diff := cmp.Diff(want, p.Templates); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	if !contains(p.ChangedPaths(), "tpl/old name.sh") || !contains(p.ChangedPaths(), "src/app.py") {
		t.Errorf("ChangedPaths misses old or non-template paths: %v", p.ChangedPaths())
	}
}

func TestBuildUsesMergeBaseLikeAPullRequest(t *testing.T) {
	r := newRepo(t)
	r.Write(map[string]string{"tpl/a.sh": "a\n", "tpl/b.sh": "b\n"})
	fork := r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(map[string]string{"tpl/a.sh": "a2\n"})
	r.Commit("pr change")
	r.Git("checkout", "-q", "main")
	r.Write(map[string]string{"tpl/b.sh": "b2\n"})
	r.Commit("main moves on")

	p, err := Build(context.Background(), r.Repo, testConfig(), "main", "pr")
	if err != nil {
		t.Fatal(err)
	}
	if p.MergeBase != fork {
		t.Errorf("merge base = %s, want the fork point %s", p.MergeBase, fork)
	}
	if got := p.Templates; len(got) != 1 || got[0].Path != "tpl/a.sh" {
		t.Errorf("want only tpl/a.sh (the PR's change), got %+v", got)
	}
}

func TestBuildNestedIncludes(t *testing.T) {
	r := newRepo(t)
	r.Write(map[string]string{
		"tpl/top.sh":   "{% include 'mid.inc' %}\n",
		"tpl/mid.inc":  "{%- include \"leaf.inc\" -%}\n",
		"tpl/leaf.inc": "leaf\n",
		"tpl/other.sh": "other\n",
	})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(map[string]string{"tpl/leaf.inc": "leaf 2\n"})
	r.Commit("head")
	p, err := Build(context.Background(), r.Repo, testConfig(), "main", "pr")
	if err != nil {
		t.Fatal(err)
	}
	want := []Template{{"harbor", "tpl/top.sh", "tpl/top.sh", "top.sh", "top.sh", Included, []string{"leaf.inc"}}}
	if diff := cmp.Diff(want, p.Templates); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuildNoTemplateChange(t *testing.T) {
	r := newRepo(t)
	r.Write(map[string]string{"tpl/a.sh": "a\n", "README": "x\n"})
	r.Commit("base")
	r.Write(map[string]string{"README": "y\n"})
	r.Commit("docs")
	p, err := Build(context.Background(), r.Repo, testConfig(), "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() || len(p.Changed) != 1 {
		t.Fatalf("want an empty plan with one changed file, got %+v", p)
	}
	// The same commit on both sides: nothing changed at all.
	p, err = Build(context.Background(), r.Repo, testConfig(), "HEAD", "HEAD")
	if err != nil || !p.Empty() || len(p.Changed) != 0 {
		t.Fatalf("same revision: %+v %v", p, err)
	}
}

func TestBuildBadRevisions(t *testing.T) {
	r := newRepo(t)
	r.Write(map[string]string{"a": "a\n"})
	r.Commit("base")
	for _, tc := range []struct{ base, head, want string }{
		{"nope", "HEAD", `base: unknown revision "nope"`},
		{"HEAD", "nope", `head: unknown revision "nope"`},
		{"--output=/tmp/x", "HEAD", "unknown revision"},
	} {
		_, err := Build(context.Background(), r.Repo, testConfig(), tc.base, tc.head)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%q, %q) error = %v, want %q", tc.base, tc.head, err, tc.want)
		}
	}
}

func TestDependsOnIgnoresCycles(t *testing.T) {
	g := map[string][]string{"a": {"b"}, "b": {"a", "c"}, "c": nil}
	got := DependsOn(g, []string{"c"})
	want := []Dependent{{"a", []string{"c"}}, {"b", []string{"c"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
