package gitx_test

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

func TestExportWritesTheTreeOfARevision(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"a.txt": "one\n", "dir/b c.txt": "two\n"})
	first := r.Commit("first")
	r.Write(map[string]string{"a.txt": "changed\n"})
	r.Commit("second")
	out := t.TempDir()
	if err := r.Repo.Export(context.Background(), first, out); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "one\n", "dir/b c.txt": "two\n"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, ".git")); err == nil {
		t.Error("export has a .git folder")
	}
	err := r.Repo.Export(context.Background(), "no-such-rev", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "git archive no-such-rev") {
		t.Errorf("unknown revision: %v", err)
	}
}

func TestReadTreeAndBlobs(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"t/x.sh": "x\n", "t/bin": "\xff\x00bin", "other": "o\n"})
	sha := r.Commit("c")
	files, err := r.Repo.ReadTree(context.Background(), sha, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || string(files["t/x.sh"]) != "x\n" || string(files["t/bin"]) != "\xff\x00bin" {
		t.Fatalf("files %q", files)
	}
	data, ok, err := r.Repo.ReadFile(context.Background(), sha, "missing")
	if ok || err != nil || data != nil {
		t.Errorf("missing file: %q %v %v", data, ok, err)
	}
	anc, err := r.Repo.IsAncestor(context.Background(), sha, "HEAD")
	if err != nil || !anc {
		t.Errorf("IsAncestor(HEAD, HEAD) = %v %v", anc, err)
	}
	if _, err := (gitx.Repo{Dir: t.TempDir()}).Resolve(context.Background(), "HEAD"); err == nil {
		t.Error("Resolve outside a repository must fail")
	}
}

// TestRunStartsNoAutoMaintenance: a repository whose own config asks for
// gc after every object, in the foreground, still gets none from a commit
// that the tool runs. The tool's scratch repositories are thrown away, so
// auto maintenance would only cost a process per command.
func TestRunStartsNoAutoMaintenance(t *testing.T) {
	r := gittest.New(t)
	for _, kv := range [][2]string{{"gc.auto", "1"}, {"gc.autoDetach", "false"}, {"maintenance.auto", "true"}, {"maintenance.autoDetach", "false"}} {
		r.Git("config", kv[0], kv[1])
	}
	// git's auto gc counts the loose objects in objects/17 only: put two
	// there.
	files := map[string]string{}
	for i := 0; len(files) < 2; i++ {
		body := fmt.Sprintf("object %d\n", i)
		if sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(body), body))); sum[0] == 0x17 {
			files[fmt.Sprintf("f%d.txt", i)] = body
		}
	}
	r.Write(files)
	ctx := context.Background()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "x"}} {
		if _, err := r.Repo.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.Repo.Run(ctx, "count-objects", "-v")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\npacks: 0\n") {
		t.Errorf("a commit packed the objects (auto gc ran):\n%s", out)
	}
}

// TestResolveUnknownRevision: a revision that names no commit gives a
// *RevisionError that suggests the nearest branch, or says what to do,
// and shows no git command line.
func TestResolveUnknownRevision(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"a": "a\n"})
	r.Commit("c")
	ctx := context.Background()
	if _, err := r.Repo.Run(ctx, "branch", "release/template-v1"); err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{
		"release/template-v2": `unknown revision "release/template-v2": no branch, tag or commit of that name in the repository (did you mean "release/template-v1"?)`,
		"zzz":                 `unknown revision "zzz": no branch, tag or commit of that name in the repository; check the spelling, name a remote's branch as origin/NAME, or fetch the commit first (git fetch origin NAME)`,
		"--output=x":          `unknown revision "--output=x": no branch, tag or commit of that name in the repository; check the spelling`,
	} {
		_, err := r.Repo.Resolve(ctx, rev)
		var re *gitx.RevisionError
		if !errors.As(err, &re) || re.Rev != rev {
			t.Errorf("%s: %v, want a *RevisionError", rev, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "rev-parse") {
			t.Errorf("%s:\n got %s\nwant %s", rev, err, want)
		}
	}
}
