package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestVersionOfACloneBuild: the README's build command, `go build -o
// bin/template-verify ./cmd/template-verify` in a git clone, makes a
// binary whose `version` prints the clone's commit. The build runs with
// GOFLAGS=-buildvcs=auto, Go's default, so that a GOFLAGS=-buildvcs=false
// in the machine's go env file (this one has it) does not decide. When
// the tests run with -race the build does too: it then reuses the
// dependencies the test build compiled (modernc.org/sqlite, pgx, River),
// where a build without it compiles them all again: 209 CPU-s against
// 27 after a race build in an empty build cache, as in CI
// (docs/performance.md). -race changes nothing the version reads.
func TestVersionOfACloneBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command in a fresh clone")
	}
	t.Parallel()
	root := gitOut(t, ".", "rev-parse", "--show-toplevel")
	clone := filepath.Join(t.TempDir(), "template-verify")
	gitOut(t, ".", "clone", "--quiet", "--no-hardlinks", root, clone)
	want := gitOut(t, clone, "rev-parse", "HEAD")[:12]

	args := []string{"build", "-o", "bin/template-verify", "./cmd/template-verify"}
	if builtWithRace() {
		args = slices.Insert(args, 1, "-race")
	}
	build := exec.Command("go", args...)
	build.Dir = clone
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(clone, "bin", "template-verify"), "version").CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "(revision "+want+" of ") || strings.Contains(string(out), "unknown") {
		t.Errorf("version printed %q, want the clone's revision %s", out, want)
	}
}

// builtWithRace reports whether this test binary was built with -race.
func builtWithRace() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}
