package textdiff

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedMatchesGitApply(t *testing.T) {
	// The diff must be a patch that git apply accepts and that turns a into b.
	cases := []struct{ name, a, b string }{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n"},
		{"added at end", "a\nb\n", "a\nb\nc\nd\n"},
		{"removed at start", "x\ny\na\nb\n", "a\nb\n"},
		{"two far hunks", strings.Repeat("l\n", 3) + "A\n" + strings.Repeat("m\n", 20) + "B\n", strings.Repeat("l\n", 3) + "A2\n" + strings.Repeat("m\n", 20) + "B2\n"},
		{"no final newline", "a\nb", "a\nc"},
		{"from empty", "", "new\nfile\n"},
		{"to empty", "old\n", ""},
		{"repeated lines", "x\nx\ny\nx\n", "x\ny\nx\nx\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, st := Unified("a/f", "b/f", tc.a, tc.b, 3)
			if d == "" {
				t.Fatal("empty diff for different inputs")
			}
			added, removed := Changed(tc.a, tc.b)
			if st.Added != len(added) || st.Removed != len(removed) {
				t.Fatalf("stats %+v, Changed gives +%d -%d", st, len(added), len(removed))
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte(tc.a), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "p.diff"), []byte(d), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "apply", "--unidiff-zero", "p.diff")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git apply: %v\n%s\ndiff:\n%s", err, out, d)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "f"))
			if string(got) != tc.b {
				t.Fatalf("applied diff gives %q, want %q\ndiff:\n%s", got, tc.b, d)
			}
		})
	}
}

func TestUnifiedEqualIsEmpty(t *testing.T) {
	if d, st := Unified("a", "b", "same\n", "same\n", 3); d != "" || st != (Stats{}) {
		t.Fatalf("got %q %+v", d, st)
	}
}

func TestHunksSeparateFarChanges(t *testing.T) {
	a := "A\n" + strings.Repeat("m\n", 20) + "B\n"
	b := "A2\n" + strings.Repeat("m\n", 20) + "B2\n"
	d, _ := Unified("a", "b", a, b, 3)
	if n := strings.Count(d, "@@ -"); n != 2 {
		t.Fatalf("want 2 hunks, got %d:\n%s", n, d)
	}
}

// TestLargeInputsGetAPreciseDiff: a 5,000-line output with one line in a
// hundred changed gets a diff of those 50 lines, not a diff that removes
// and adds the whole file (the hand-written LCS diff gave up past 16
// million cells and did that).
func TestLargeInputsGetAPreciseDiff(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		line := fmt.Sprintf("echo step %d\n", i)
		a.WriteString(line)
		if i%100 == 0 {
			line = "echo changed " + line[len("echo "):]
		}
		b.WriteString(line)
	}
	d, st := Unified("a", "b", a.String(), b.String(), 3)
	if st != (Stats{Added: 50, Removed: 50}) {
		t.Fatalf("stats %+v, want 50 added and 50 removed", st)
	}
	if n := strings.Count(d, "\n-echo step "); n != 50 {
		t.Errorf("the diff removes %d lines, want 50", n)
	}
	if n := strings.Count(d, "@@ -"); n != 50 {
		t.Errorf("%d hunks, want 50 (one per change, far apart)", n)
	}
}
