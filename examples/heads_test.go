package examples

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// Heads that Build does not make: the tests below build them on a copy of
// the example (config-added's PR base is without-config, see its .base).
const (
	// headWithoutConfig removes .github/template-verify.yml: a repository
	// that has not adopted template-verify yet.
	headWithoutConfig = "without-config"
	// headConfigAdded adds the config file for the first time, with the
	// good head's changes; its PR base is headWithoutConfig.
	headConfigAdded = "config-added"
	// headCopiedHelper adds tests/fc_names.py, which the adapter copies
	// verbatim: "{%s}" % name is valid Python and not valid Jinja.
	headCopiedHelper = "copied-helper"
)

// copyLine is the copy: entry of the example config's harbor group.
const copyLine = `    copy: ["tests/parser.py", "tests/fc_*.py"]` + "\n"

// extraHeads are the heads the tests build on the shared example of
// heads(t), in build order (a head after the head its .base names).
var extraHeads = []string{
	headWithoutConfig, headConfigAdded, headCopiedHelper,
	headSyncCopy, headSyncBad, headSyncReordered, headNamesBad, headNamesDefault,
	headTaintFlags, headTaintNewFlag,
	headArchive, headArchiveEdit, headArchiveBad,
}

var withHeads shared

// heads returns one example with every head of extraHeads, built once and
// shared by the tests. A test that adds a branch to it (commitOn,
// branchWithout) does so without t.Parallel, under a branch name no other
// test uses: the parallel tests, which only read, run after it.
func heads(t *testing.T) *Built {
	t.Helper()
	return withHeads.get(t, "datasmith-mini-heads-", extraHeads...)
}

// branchWithout commits, on a new branch from rev, the tree of rev with
// old replaced by new in the config file, and returns the branch name.
func branchWithout(t *testing.T, b *Built, name, rev, old, new string) string {
	t.Helper()
	ctx := context.Background()
	repo := gitx.Repo{Dir: b.Dir}
	if _, err := repo.Run(ctx, "checkout", "-q", "-b", name, rev); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(b.Dir, filepath.FromSlash(config.Path))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s at %s has no %q", config.Path, rev, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Run(ctx, "commit", "-q", "--no-verify", "-am", name); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Run(ctx, "checkout", "-q", BaseBranch); err != nil {
		t.Fatal(err)
	}
	return name
}

// verifyOnly runs the named checks of a pull request from base to head.
func verifyOnly(t *testing.T, b *Built, base, head string, only ...string) *report.Report {
	t.Helper()
	rep, err := verify.Run(context.Background(), verify.Options{RepoDir: b.Dir, Base: base, Head: head, Only: only})
	if err != nil {
		t.Fatalf("verify %s..%s: %v", base, head, err)
	}
	return rep
}

// result returns the result of one check of a report.
func result(t *testing.T, rep *report.Report, check string) checks.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Check == check {
			return r
		}
	}
	t.Fatalf("the report has no %s result", check)
	return checks.Result{}
}

// failureTitles lists the failure findings of a result as "path: title".
func failureTitles(r checks.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Level == checks.LevelFailure {
			out = append(out, f.Path+": "+f.Title+": "+f.Message)
		}
	}
	return out
}

// TestCopiedHelperHead verifies the copied-helper head: the helper is
// never rendered, and its change still runs the pytest suite (whose new
// test checks the helper). Without the copy: entry the same change is a
// render failure, so the entry is what keeps valid Python from failing.
func TestCopiedHelperHead(t *testing.T) {
	needPython(t, "jinja2", "pytest")
	b := heads(t)
	noCopyBase := branchWithout(t, b, "main-no-copy", b.Base, copyLine, "")
	noCopyHead := branchWithout(t, b, "copied-helper-no-copy", headCopiedHelper, copyLine, "")
	tests := []struct {
		name, base, head string
		overall          checks.Conclusion
		render           checks.Conclusion
		renderFailure    string // a part of a render failure; "" for none
		pytest           checks.Conclusion
	}{
		{"copy lists the helper", BaseBranch, headCopiedHelper, checks.Success, checks.Skipped, "", checks.Success},
		{"no copy entry", noCopyBase, noCopyHead, checks.Failure, checks.Failure, "tests/fc_names.py", checks.Success},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := verifyOnly(t, b, tc.base, tc.head, "render", "pytest")
			render, py := result(t, rep, "render"), result(t, rep, "pytest")
			fails := failureTitles(render)
			if render.Conclusion != tc.render {
				t.Errorf("render: %s (%s), want %s; failures %q", render.Conclusion, render.Title, tc.render, fails)
			}
			if tc.renderFailure == "" && len(fails) > 0 {
				t.Errorf("render failures %q, want none", fails)
			}
			if tc.renderFailure != "" && !slices.ContainsFunc(fails, func(f string) bool { return strings.Contains(f, tc.renderFailure) }) {
				t.Errorf("render failures %q, want one about %s", fails, tc.renderFailure)
			}
			if py.Conclusion != tc.pytest || !strings.Contains(py.Summary, "templates passes") {
				t.Errorf("pytest: %s (%s: %s), want %s with the templates suite run", py.Conclusion, py.Title, py.Summary, tc.pytest)
			}
			if rep.Overall != tc.overall {
				t.Errorf("overall %s, want %s (notes %q)", rep.Overall, tc.overall, rep.Notes)
			}
		})
	}
}
