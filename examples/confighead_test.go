package examples

import (
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// TestConfigHeads verifies the heads around the config file: a PR that
// adds it for the first time is verified with the config it adds (its
// templates suite runs, not the defaults' docker suite, whose files this
// repository never had), and a PR that removes it is verified without an
// error.
func TestConfigHeads(t *testing.T) {
	t.Parallel()
	needPython(t, "jinja2", "pytest")
	b := heads(t)
	if got := BaseBranchOf(headConfigAdded); got != headWithoutConfig {
		t.Fatalf("%s targets %s, want %s", headConfigAdded, got, headWithoutConfig)
	}
	if got := git(t, b.Dir, "diff", "--name-only", headConfigAdded, HeadGood); got != "" {
		t.Errorf("%s and %s differ in %s, want the same tree", headConfigAdded, HeadGood, got)
	}
	if got := git(t, b.Dir, "diff", "--name-status", b.Base, headWithoutConfig); got != "D\t"+config.Path {
		t.Errorf("%s changes %q, want only the removal of %s", headWithoutConfig, got, config.Path)
	}
	tests := []struct {
		name, base, head string
		source           string // the report's config source
		suite            string // the pytest suite that runs; "" for none
		overall          checks.Conclusion
	}{
		{"adds the config", headWithoutConfig, headConfigAdded, config.Path, "templates", checks.Success},
		{"removes the config", BaseBranch, headWithoutConfig, config.Default().Source, "", checks.Success},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := verifyOnly(t, b, tc.base, tc.head, "render", "pytest")
			if rep.ConfigSource != tc.source {
				t.Errorf("config source %q, want %q", rep.ConfigSource, tc.source)
			}
			for _, r := range rep.Results {
				if r.Conclusion == checks.Failure || r.Conclusion == checks.NotRun {
					t.Errorf("%s: %s (%s: %s) %q", r.Check, r.Conclusion, r.Title, r.Summary, failureTitles(r))
				}
			}
			if tc.suite == "" {
				// Nothing is rendered or run, and the report says what the
				// removal changes.
				if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "The PR changes what is verified") }) {
					t.Errorf("notes %q, want one that the PR changes what is verified", rep.Notes)
				}
			} else if py := result(t, rep, "pytest"); !strings.Contains(py.Summary, "suite "+tc.suite+" passes") || strings.Contains(py.Summary, "docker") {
				t.Errorf("pytest: %s, want only the suite %s, passing", py.Summary, tc.suite)
			}
			if rep.Overall != tc.overall {
				t.Errorf("overall %s, want %s (notes %q)", rep.Overall, tc.overall, rep.Notes)
			}
		})
	}
}
