package junit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const debianPython = "/usr/bin/python3"

// TestLivePytest runs the installed pytest on a copy of testdata/project, so
// that a pytest version that writes other classnames breaks this test, not
// the pytest check.
func TestLivePytest(t *testing.T) {
	if err := exec.Command(debianPython, "-c", "import pytest").Run(); err != nil {
		t.Skipf("%s cannot import pytest: %v", debianPython, err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "project"))); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PYTHONDONTWRITEBYTECODE=1"}
	run := func(args ...string) string {
		cmd := exec.Command(debianPython, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "--continue-on-collection-errors", "-q"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, _ := cmd.CombinedOutput() // exit 1: the project has failing tests
		return string(out)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(run("--collect-only", "tests"), "\n") {
		if strings.Contains(l, "::") {
			want[strings.TrimSpace(l)] = true
		}
	}
	if len(want) < 10 {
		t.Fatalf("pytest collected %d ids", len(want))
	}
	for _, fam := range []string{"xunit1", "xunit2"} {
		xml := filepath.Join(dir, fam+".xml")
		out := run("-o", "junit_family="+fam, "--junitxml="+xml, "tests")
		if _, err := os.Stat(xml); err != nil {
			t.Fatalf("pytest wrote no %s: %v\n%s", xml, err, out)
		}
		checkIDs(t, xml, dir, want, fam == "xunit1")
	}
}
