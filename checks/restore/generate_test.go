package restore

import (
	"regexp"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
)

// TestGeneratePaths: every pattern of the datasmith policy and of other
// shapes gets base files and new files that match it, near misses that
// match no pattern, and names with unusual characters wherever the
// pattern allows them.
func TestGeneratePaths(t *testing.T) {
	patterns := append(append([]string{}, config.MeasurementPatterns...), config.TestFilePatterns...)
	patterns = append(patterns, `^grading/`, `(^|/)pytest\.ini$`, `^a b/[^/]+\.cfg$`, `(?i)^CHANGELOG`, `(^|/)fixtures?/.*\.json$`)
	policy, err := NewPolicy(patterns)
	if err != nil {
		t.Fatal(err)
	}
	project := fixture.Project()
	gp, skipped := generatePaths(append(patterns, patterns[0]), project, policy.Protects)
	if len(skipped) > 0 {
		t.Errorf("patterns with no path: %q", skipped)
	}
	seen := map[string]string{}
	for _, pp := range gp {
		re := regexp.MustCompile(pp.Pattern)
		for _, p := range []string{pp.Plain, pp.Fancy, pp.New, pp.New2} {
			if p == "" {
				continue
			}
			if !re.MatchString(p) || !validPath(p) {
				t.Errorf("%s: %q does not match or is not a valid path", pp.Pattern, p)
			}
		}
		for _, p := range []string{pp.New, pp.New2, pp.Miss, pp.Miss2} {
			if _, ok := project[p]; ok && p != "" {
				t.Errorf("%s: new path %q is in the project", pp.Pattern, p)
			}
		}
		for _, p := range []string{pp.Miss, pp.Miss2} {
			if p != "" && policy.Protects(p) {
				t.Errorf("%s: near miss %q is protected", pp.Pattern, p)
			}
		}
		if pp.New == "" || pp.Miss == "" {
			t.Errorf("%s: no new path or near miss: %+v", pp.Pattern, pp)
		}
		for _, p := range []string{pp.Plain, pp.Fancy, pp.New, pp.New2, pp.Miss, pp.Miss2} {
			if p == "" || (p == pp.Fancy && p == pp.Plain) {
				continue
			}
			if other, dup := seen[p]; dup {
				t.Errorf("%q is made for %s and %s", p, other, pp.Pattern)
			}
			seen[p] = pp.Pattern
		}
	}
	// A folder pattern gets unusual names: a space and a non-ASCII letter.
	for _, pp := range gp {
		if pp.Pattern == `(^|/)benchmarks?/` && (fanciness(pp.Fancy) == 0 || !strings.ContainsAny(pp.New, " é'[")) {
			t.Errorf("%s: no unusual name: %+v", pp.Pattern, pp)
		}
	}
	// The tree with the generated files builds, and its scenarios apply.
	tree := withGenerated(project, gp)
	if _, err := fixture.CommitSHA(tree, baseMessage); err != nil {
		t.Fatal(err)
	}
	if len(gp) != len(patterns) {
		t.Errorf("%d patterns made paths, want %d (each once)", len(gp), len(patterns))
	}
	if n := len(policyScenarios(gp)); n != 2*len(gp) {
		t.Errorf("%d scenarios for %d patterns", n, len(gp))
	}
}

// A pattern that only a file of the project matches gets scenarios on
// that file.
func TestGeneratePathsUsesTheProjectsOwnFile(t *testing.T) {
	gp, skipped := generatePaths([]string{`^pyproject\.toml$`}, fixture.Project(), func(p string) bool { return p == "pyproject.toml" })
	if len(skipped) != 0 || len(gp) != 1 || gp[0].Plain != "pyproject.toml" || !gp[0].Existing || gp[0].New != "" {
		t.Fatalf("made %+v, skipped %q", gp, skipped)
	}
	if tree := withGenerated(fixture.Project(), gp); string(tree["pyproject.toml"].Data) != string(fixture.Project()["pyproject.toml"].Data) {
		t.Error("the project's own file was replaced")
	}
	sc := policyScenarios(gp)
	if len(sc) != 2 || sc[0].Edits[0].Path != "pyproject.toml" {
		t.Errorf("scenarios %+v", sc)
	}
}

// A pattern that no file path can match is reported, not a crash.
func TestGeneratePathsSkipsImpossiblePatterns(t *testing.T) {
	gp, skipped := generatePaths([]string{`^$`, `x\z/`}, fixture.Project(), func(string) bool { return false })
	if len(gp) != 0 || len(skipped) != 2 {
		t.Errorf("made %+v, skipped %q", gp, skipped)
	}
}
