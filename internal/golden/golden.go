// Package golden compares a test's output with a golden file under
// testdata and rewrites the file when the test runs with -update.
//
// The -update flag is registered once, here, for every test binary that
// imports the package:
//
//	go test ./cmd/template-verify -run TestDemoGolden -update
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/formula-code/template-verify/internal/textdiff"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Check compares got with the file at path (relative to the test's
// package folder, usually under testdata). With -update it writes got
// there instead, making folders. A missing file or a difference fails the
// test with a unified diff (want to got) and the command that rewrites it.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
		return
	}
	if string(want) == got {
		return
	}
	diff, _ := textdiff.Unified(path, "got", string(want), got, 3)
	t.Errorf("the output differs from %s (run the test with -update to rewrite it, then review the diff):\n%s", path, diff)
}
