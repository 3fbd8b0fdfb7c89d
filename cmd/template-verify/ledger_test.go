package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

// ledgerConfig verifies one prompt template with the render check only.
const ledgerConfig = `version: 1
groups:
  - name: prompts
    root: templates
    jinja: {trim_blocks: true, lstrip_blocks: true}
    vars: {name: x}
    templates: [{path: "*.j2"}]
restore: null
pytest: null
checks:
  disable: [sync, names, taint, description, archive]
`

// TestLedgerCommand re-verifies each pull request merged into a release
// branch: a good template change is verified, a broken one is red, and a
// commit pushed to the branch is not a pull request.
func TestLedgerCommand(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{".github/template-verify.yml": ledgerConfig, "templates/final.md.j2": "Hello {{ name }}.\n"})
	r.Commit("main")
	r.Git("checkout", "-q", "-b", "release/template-v1")
	for i, tmpl := range []string{"Hi {{ name }}.\n", "Hi {% if name %}{{ name }}.\n"} {
		b := []string{"good", "broken"}[i]
		r.Git("checkout", "-q", "-b", b, "release/template-v1")
		r.Write(map[string]string{"templates/final.md.j2": tmpl})
		r.Commit(b + " template")
		r.Git("checkout", "-q", "release/template-v1")
		r.Git("merge", "-q", "--no-ff", "-m", []string{"Merge pull request #11 from formula-code/good", "Merge pull request #12 from formula-code/broken"}[i], b)
		if i == 0 {
			r.Write(map[string]string{"VERSION": "1\n"})
			r.Commit("bump the version")
		}
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"ledger", "--repo", r.Dir(), "--base", "main", "--head", "release/template-v1"}, &out, &errb)
	if code != exitFail {
		t.Fatalf("exit %d; want %d\n%s\n%s", code, exitFail, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := [][]string{
		{"PR", "Merge", "Merged head", "Verification", "Result", "Note"},
		{"#11", "verified"},
		{"-", "not a pull request"},
		{"#12", "failure", "red"},
	}
	for i, w := range want {
		for _, s := range w {
			if i >= len(lines) || !strings.Contains(lines[i], s) {
				t.Fatalf("line %d lacks %q:\n%s", i, s, out.String())
			}
		}
	}
	if !strings.Contains(out.String(), "1 of 3 entries lack a green verification") {
		t.Errorf("no summary line:\n%s", out.String())
	}
}
