package pytest_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/verify"
)

// TestCopiedFileChangeRunsThePytestSuites: a PR that changes only a file
// production copies verbatim (no template in the plan) still runs the
// pytest suites whose triggers match it.
func TestCopiedFileChangeRunsThePytestSuites(t *testing.T) {
	t.Parallel()
	if exec.Command("python3", "-c", "import pytest").Run() != nil && exec.Command("/usr/bin/python3", "-c", "import pytest").Run() != nil {
		t.Skip("no python3 with pytest: not run")
	}
	const cfg = `version: 1
groups:
  - name: h
    root: tpl
    copy: ["tests/*.py"]
    templates: [{path: "**"}]
pytest:
  suites:
    - name: unit
      files: [tests/test_ok.py]
      triggers: ["tpl/**"]
`
	cases := []struct {
		name string
		head map[string]string
		want checks.Conclusion
	}{
		{"a copied helper changes", map[string]string{"tpl/tests/parser.py": "name = 'a'\nprint(\"{%s}\" % name)\n"}, checks.Success},
		{"no copied file changes", map[string]string{"README": "more\n"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := checktest.Repo(t, map[string]string{".github/template-verify.yml": cfg, "tpl/tests/parser.py": "x = 1\n", "tpl/tests/test.sh": "echo\n",
				"tests/test_ok.py": "def test_ok():\n    assert True\n", "README": "x\n"}, c.head).Dir()
			rep, err := verify.Run(ctx, verify.Options{RepoDir: dir, Base: checktest.Base, Head: checktest.Head, Only: []string{"pytest"}})
			if err != nil {
				t.Fatal(err)
			}
			got := checks.Conclusion("")
			for _, r := range rep.Results {
				if r.Check == "pytest" {
					got = r.Conclusion
				}
			}
			if got != c.want {
				t.Errorf("pytest %q, want %q (notes %v)", got, c.want, rep.Notes)
			}
		})
	}
}
