package examples

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// randomEdit changes lines of text: some replaced, some removed, some
// added, at the start, the middle and the end.
func randomEdit(r *rand.Rand, text string) string {
	lines := strings.SplitAfter(text, "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	var out []string
	for i, l := range lines {
		switch r.IntN(6) {
		case 0:
			// removed
		case 1:
			out = append(out, fmt.Sprintf("changed %d\n", i))
		case 2:
			out = append(out, fmt.Sprintf("added before %d\n", i), l)
		default:
			out = append(out, l)
		}
	}
	if r.IntN(2) == 0 {
		out = append(out, "added at the end\n")
	}
	return strings.Join(out, "")
}

// TestApplyPatchMatchesGit makes patches with git diff, with 0, 1 and 3
// lines of context, of random edits, new files and deleted files, and
// checks that applyPatch gives the tree git committed.
func TestApplyPatchMatchesGit(t *testing.T) {
	var base strings.Builder
	for i := range 40 {
		fmt.Fprintf(&base, "line %d\n", i)
	}
	for seed := range 12 {
		for _, context := range []string{"-U0", "-U1", "-U3"} {
			t.Run(fmt.Sprintf("seed-%d%s", seed, context), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(seed), 7))
				dir := t.TempDir()
				before := tree{"a.txt": []byte(base.String()), "dir/b.txt": []byte("one\ntwo\n"), "gone.txt": []byte("x\ny\n")}
				writeTreeFiles(t, dir, before)
				git(t, dir, "init", "-q")
				git(t, dir, "add", "-A")
				git(t, dir, "commit", "-qm", "before")
				after := tree{
					"a.txt":     []byte(randomEdit(r, base.String())),
					"dir/b.txt": []byte(randomEdit(r, "one\ntwo\n")),
					"new.txt":   []byte("new\nfile\n"),
				}
				if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
					t.Fatal(err)
				}
				writeTreeFiles(t, dir, after)
				git(t, dir, "add", "-A")
				patch := git(t, dir, "diff", "--cached", context) + "\n"
				got := before.clone()
				if err := applyPatch(got, []byte(patch), "edit.patch"); err != nil {
					t.Fatalf("%v\n%s", err, patch)
				}
				if !treesEqual(got, after) {
					t.Fatalf("applyPatch gave\n%q\nwant\n%q\npatch:\n%s", got, after, patch)
				}
			})
		}
	}
}

func writeTreeFiles(t *testing.T, dir string, files tree) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestApplyPatchRefuses: a patch that does not fit the tree is an error
// that names the patch's line and the file's, and a patch that is not
// plain text hunks is errPatchNotPlain, so that Build lets git apply it.
func TestApplyPatchRefuses(t *testing.T) {
	const header = "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n"
	cases := []struct {
		name, patch string
		notPlain    bool
		want        string
	}{
		{"context differs", header + "@@ -2,2 +2,2 @@\n b\n-c\n+C\n", false, `x.patch:5: f: the hunk's 2 old lines, from "b", are not in the file after line 0`},
		{"past the end", header + "@@ -9,1 +9,1 @@\n-z\n+Z\n", false, `x.patch:5: f: the hunk's 1 old lines, from "z", are not in the file`},
		{"adds past the end", header + "@@ -9,0 +10 @@\n+z\n", false, "x.patch:5: f: the hunk adds after line 9, outside the file's 3 lines"},
		{"short hunk", header + "@@ -1,3 +1,3 @@\n a\n", false, "x.patch:5: the hunk ends before its line counts"},
		{"missing file", strings.NewReplacer("a/f", "a/g", "b/f", "b/g").Replace(header) + "@@ -1 +1 @@\n-a\n+b\n", false, "x.patch: g does not exist"},
		{"no newline", header + "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n", true, ""},
		{"binary", "diff --git a/f b/f\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 1\n", true, ""},
		{"mode change", "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n", true, ""},
		{"rename", "diff --git a/f b/g\nsimilarity index 100%\nrename from f\nrename to g\n", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := tree{"f": []byte("a\nB\nc\n")}
			err := applyPatch(tr, []byte(c.patch), "x.patch")
			if err == nil {
				t.Fatalf("applied: %q", tr)
			}
			if errors.Is(err, errPatchNotPlain) != c.notPlain {
				t.Fatalf("errPatchNotPlain is %v for %v", !c.notPlain, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// TestApplyPatchFindsMovedHunk: as git apply, a hunk whose lines moved
// (an earlier patch added lines above them) applies where they are now,
// the nearest place to the line it names.
func TestApplyPatchFindsMovedHunk(t *testing.T) {
	patch := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-B\n+b\n@@ -5,1 +5,1 @@\n-a\n+A\n"
	tr := tree{"f": []byte("x\na\nB\ny\nz\na\n")}
	if err := applyPatch(tr, []byte(patch), "x.patch"); err != nil {
		t.Fatal(err)
	}
	if got, want := string(tr["f"]), "x\na\nb\ny\nz\nA\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
