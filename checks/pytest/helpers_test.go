package pytest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
)

// exampleRunner is the runner template of the bundled example.
const exampleRunner = "../../examples/datasmith-mini/base/src/datasmith/harbor_adapter/template/tests/pytest_runner.py"

// needPython returns an interpreter with pytest, or skips the test.
func needPython(t *testing.T) *python {
	t.Helper()
	py, err := findPython(context.Background(), "", t.TempDir())
	if err != nil {
		t.Skipf("the pytest check needs a python that can import pytest: %v", err)
	}
	return py
}

// renderExampleRunner renders the example's runner template with gonja as
// the check does, and writes it into a temporary folder.
func renderExampleRunner(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(exampleRunner)
	if err != nil {
		t.Fatal(err)
	}
	root := "src/datasmith/harbor_adapter/template"
	env, err := jinja.NewEnv(map[string][]byte{root + "/tests/pytest_runner.py": data}, root, config.Jinja{StrictUndefined: true, KeepTrailingNewline: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := env.Render("tests/pytest_runner.py", map[string]any{"task_id": "example-owner__example-repo-1"})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "pytest_runner.py")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
