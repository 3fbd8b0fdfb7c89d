package checks_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/formula-code/template-verify"

// engineDeps lists the packages that pkgs depend on (go list -deps) and
// that run templates or code from a pull request: the gonja engine,
// internal/jinja and internal/sandbox.
func engineDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)
	out, err := exec.Command(goCmd, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module+"/third_party/gonja") ||
			p == module+"/internal/jinja" || p == module+"/internal/sandbox" {
			bad = append(bad, p)
		}
	}
	return bad
}

// TestModelLinksNoEngine: checks is the result model that report and
// publish read; none of the three links a template engine or the sandbox
// (the render helpers live in internal/rendertemplate).
func TestModelLinksNoEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	// The check itself: a package that renders is caught.
	if bad := engineDeps(t, module+"/checks/render"); len(bad) == 0 {
		t.Fatal("go list -deps of checks/render names no engine; the test cannot see one")
	}
	if bad := engineDeps(t, module+"/checks", module+"/report", module+"/publish"); len(bad) > 0 {
		t.Errorf("checks, report or publish depend on %s", strings.Join(bad, ", "))
	}
}
