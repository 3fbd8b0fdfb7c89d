package examples

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

var pytestSummary = regexp.MustCompile(`(?m)^=*\s*(\d+) passed(.*) in [0-9.]+s\s*=*$`)

// TestExamplePytestSuite runs the example's own suite at base and at the
// good head with Debian's python3, as the pytest check would.
func TestExamplePytestSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the example suite takes about 5 s per tree")
	}
	t.Parallel()
	needPython(t, "pytest", "jinja2")
	b := example(t)
	for _, r := range [][2]string{{"base", b.Base}, {HeadGood, b.Heads[HeadGood]}} {
		t.Run(r[0], func(t *testing.T) {
			t.Parallel()
			dir := export(t, b, r[1])
			cmd := exec.Command(debianPy, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/test_templates.py")
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C.UTF-8", "PYTHONPATH=src", "PYTHONDONTWRITEBYTECODE=1"}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("pytest at %s: %v\n%s", r[0], err, out)
			}
			m := pytestSummary.FindSubmatch(out)
			if m == nil {
				t.Fatalf("no pytest summary line in:\n%s", out)
			}
			if n, _ := strconv.Atoi(string(m[1])); n < 8 || len(m[2]) > 0 {
				t.Errorf("pytest at %s: %q, want at least 8 passed and nothing else", r[0], m[0])
			}
			t.Logf("pytest at %s: %s", r[0], m[0])
		})
	}
}
