package restore

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/gitx"
)

func TestEditRoundTrip(t *testing.T) {
	edits := []Edit{
		write("benchmarks/sp ace.py", "x = 1\n"),
		write("benchmarks/it's \"q\" \\ b.py", "tab\there\n"),
		write("tests/test_données.py", "é\n"),
		write("odd\nname.py", ""),
		appendTo("conftest.py", "\n# more\n"),
		del("tests"),
		chmod("run.sh", "+x"),
		chmod("run.sh", "-x"),
		symlink("tests/test_a.py", "../src/a.py"),
		move("a b.py", "c/d.py"),
		add("."),
		commit("agent: fix \"it\""),
		orphan("other"),
	}
	text := FormatEdits(edits)
	got, err := ParseEdits("# a comment\n\n" + text)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(edits) {
		t.Fatalf("%d edits back, want %d", len(got), len(edits))
	}
	for i := range edits {
		if got[i] != edits[i] {
			t.Errorf("edit %d: %+v, want %+v", i, got[i], edits[i])
		}
	}
	if strings.Count(text, "\n") != len(edits) {
		t.Errorf("not one edit a line:\n%s", text)
	}
	// Bare words work too.
	e, err := ParseEdit(`delete tests/test_a.py`)
	if err != nil || e != del("tests/test_a.py") {
		t.Errorf("bare words: %+v, %v", e, err)
	}
}

func TestParseEditErrors(t *testing.T) {
	cases := map[string]string{
		`rename "a" "b"`:       `unknown operation "rename"`,
		`write "a"`:            "write takes 2 arguments, got 1",
		`delete "a" "b"`:       "delete takes 1 arguments, got 2",
		`chmod "a" "+w"`:       "chmod takes +x or -x",
		`write "a "b"`:         "bare word",
		`write "a\q" "b"`:      "bad quoted string",
		"write \"unterminated": "bad quoted string",
	}
	for line, want := range cases {
		_, err := ParseEdit(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEdit(%s): %v, want an error with %q", line, err, want)
		}
	}
	_, err := ParseEdits("add \".\"\n\nbogus \"x\"\n")
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") {
		t.Errorf("ParseEdits error %v, want it to name line 3", err)
	}
}

// newFixture makes a copy of a freshly built base fixture.
func newFixture(t *testing.T) (dir, base string) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	b, err := fixture.Build(root+"/base", fixture.Project(), "base")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Make(ctx, root+"/repo"); err != nil {
		t.Fatal(err)
	}
	return root + "/repo", b.SHA
}

func TestApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, base := newFixture(t)
	repo := gitx.Repo{Dir: dir}
	err := Apply(ctx, dir, []Edit{
		write("tests/new dir/test_x.py", "x\n"),
		appendTo("conftest.py", "# more\n"),
		appendTo("fresh.txt", "made by append\n"),
		write("scripts/release.sh", "#!/bin/sh\necho changed\n"), // keeps the exec bit
		chmod("tests/test_core.py", "+x"),
		chmod("benchmarks/run.sh", "-x"),
		symlink("tests/test_io.py", "../src/pkg/io.py"),
		write("benchmarks/latest.py", "now a file\n"),
		move("tests/test_parse.py", "tests/moved/test_parse.py"),
		del("tests/sub"),
		add("."),
		commit("agent"),
	})
	if err != nil {
		t.Fatal(err)
	}
	w, err := fixture.ReadWork(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		path string
		want fixture.Entry
	}{
		{"tests/new dir/test_x.py", fixture.File("x\n")},
		{"conftest.py", fixture.File(string(fixture.Project()["conftest.py"].Data) + "# more\n")},
		{"fresh.txt", fixture.File("made by append\n")},
		{"scripts/release.sh", fixture.Exec("#!/bin/sh\necho changed\n")},
		{"tests/test_core.py", fixture.Exec(string(fixture.Project()["tests/test_core.py"].Data))},
		{"benchmarks/run.sh", fixture.File(string(fixture.Project()["benchmarks/run.sh"].Data))},
		{"tests/test_io.py", fixture.Symlink("../src/pkg/io.py")},
		{"benchmarks/latest.py", fixture.File("now a file\n")},
		{"tests/moved/test_parse.py", fixture.Project()["tests/test_parse.py"]},
	}
	for _, c := range checks {
		if got, ok := w[c.path]; !ok || !got.Same(c.want) {
			t.Errorf("%s: %+v (present %v), want %+v", c.path, got, ok, c.want)
		}
	}
	for _, gone := range []string{"tests/test_parse.py", "tests/sub/conftest.py", "tests/sub/test_sub.py"} {
		if _, ok := w[gone]; ok {
			t.Errorf("%s is still there", gone)
		}
	}
	// The commit holds the work tree and sits on top of the base.
	if ok, err := repo.IsAncestor(ctx, base, "HEAD"); err != nil || !ok {
		t.Errorf("HEAD does not descend from the base: %v", err)
	}
	if out, _ := repo.Run(ctx, "status", "--porcelain"); len(out) != 0 {
		t.Errorf("the work tree is not clean after add and commit:\n%s", out)
	}
	if err := Apply(ctx, dir, []Edit{orphan("other"), commit("unrelated")}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := repo.IsAncestor(ctx, base, "HEAD"); ok {
		t.Error("an orphan commit descends from the base")
	}
}

func TestApplyRefusesPathsOutsideTheRepository(t *testing.T) {
	t.Parallel()
	dir, _ := newFixture(t)
	for _, e := range []Edit{
		write("../escape.txt", "x"),
		write("/tmp/abs.txt", "x"),
		write("a/../../b", "x"),
		write(".git/config", "x"),
		write("sub/.git/hooks/pre-commit", "x"),
		move("README.md", "../README.md"),
		del(""),
		chmod("benchmarks/latest.py", "+x"), // a symlink
		del("no/such/file"),
	} {
		if err := Apply(context.Background(), dir, []Edit{e}); err == nil {
			t.Errorf("%s: no error", e)
		}
	}
}
