package description

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/housestyle"
)

func seed(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seeds", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func run(desc string, base, head *config.Config) checks.Result {
	if head == nil {
		head = config.Default()
	}
	return New().Run(context.Background(), &checks.Input{Config: head, BaseConfig: base, Description: desc})
}

// TestSeedsPass runs the check on the five seed PR descriptions (the
// passing corpus) with the datasmith defaults: none fails, and every rule
// the linter reports is one warning at its line.
func TestSeedsPass(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/seeds/*.md")
	if err != nil || len(files) != 5 {
		t.Fatalf("seeds: %v, %d files, want 5", err, len(files))
	}
	for _, f := range files {
		md := seed(t, filepath.Base(f))
		res := run(md, config.Default(), config.Default())
		if res.Conclusion != checks.Success {
			t.Errorf("%s: conclusion %s (%s), want success", filepath.Base(f), res.Conclusion, res.Title)
		}
		probs := housestyle.Lint(md)
		if len(res.Findings) != len(probs) {
			t.Errorf("%s: %d findings, want one per problem (%d)", filepath.Base(f), len(res.Findings), len(probs))
			continue
		}
		for i, p := range probs {
			got := res.Findings[i]
			if got.Level != checks.LevelWarning || got.Line != p.Line || !strings.Contains(got.Title, p.Rule) {
				t.Errorf("%s: finding %d = %+v, want a warning for %s at line %d", filepath.Base(f), i, got, p.Rule, p.Line)
			}
		}
	}
}

// TestMutations breaks one rule in a copy of testdata/seeds/004_* (a
// datasmith pull request description with only sentence-length
// warnings) and checks the new finding: a warning by
// default, a failure with description.level: fail.
func TestMutations(t *testing.T) {
	t.Parallel()
	orig := seed(t, "004_e73a9411de5f931a.md")
	lineOf := func(md, s string) int {
		for i, l := range strings.Split(md, "\n") {
			if strings.Contains(l, s) {
				return i + 1
			}
		}
		return 0
	}
	tests := []struct {
		name, rule string
		mutate     func(string) string
		marker     string // text on the line the finding names
	}{
		{"banned word", housestyle.RuleBannedWord, func(s string) string {
			return strings.Replace(s, "Only the exact value 1 turns a step off.", "Only the exact value 1 turns a step off, a robust rule.", 1)
		}, "a robust rule"},
		{"ai attribution", housestyle.RuleAIAttribution, func(s string) string {
			return strings.Replace(s, "## Notes\n", "## Notes\n\nGenerated with a chat assistant.\n", 1)
		}, "Generated with"},
		{"footer", housestyle.RuleFooter, func(s string) string { return s + "\n\n<sub>by a bot</sub>\n" }, "<sub>by a bot</sub>"},
		{"unknown section", housestyle.RuleSection, func(s string) string {
			return strings.Replace(s, "## Verification", "## Testing", 1)
		}, "## Testing"},
		{"sections out of order", housestyle.RuleSection, func(s string) string {
			return strings.Replace(s, "## Purpose", "## Notes", 1)
		}, "## How it works"},
		{"unclosed fence", housestyle.RuleFence, func(s string) string { return s + "\n```bash\necho hi\n" }, "```bash"},
		{"host name", housestyle.RuleHostName, func(s string) string {
			return strings.Replace(s, "Only the exact value 1 turns a step off.", "Only the exact value 1 turns a step off, see example.com for more.", 1)
		}, "example.com"},
		{"long sentence", housestyle.RuleSentenceLength, func(s string) string {
			return strings.Replace(s, "Only the exact value 1 turns a step off.", "Only the exact value 1 turns a step off"+strings.Repeat(" and more", 12)+".", 1)
		}, "and more and more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := tc.mutate(orig)
			if md == orig {
				t.Fatal("the mutation changed nothing")
			}
			line := lineOf(md, tc.marker)
			find := func(res checks.Result) *checks.Finding {
				for i, f := range res.Findings {
					if f.Line == line && strings.Contains(f.Title, tc.rule) {
						return &res.Findings[i]
					}
				}
				return nil
			}
			res := run(md, config.Default(), config.Default())
			f := find(res)
			if f == nil || f.Level != checks.LevelWarning || res.Conclusion != checks.Success {
				t.Fatalf("default: conclusion %s, finding %+v; want success with a %s warning at line %d", res.Conclusion, f, tc.rule, line)
			}
			strict := config.Default()
			strict.Description.Level = config.DescriptionFail
			res = run(md, strict, strict)
			f = find(res)
			if f == nil || f.Level != checks.LevelFailure || res.Conclusion != checks.Failure {
				t.Fatalf("level fail: conclusion %s, finding %+v; want failure with a %s failure at line %d", res.Conclusion, f, tc.rule, line)
			}
		})
	}
}

// TestMissing: no description (no --description, an empty body) is
// skipped with a reason, never a pass.
func TestMissing(t *testing.T) {
	t.Parallel()
	for _, desc := range []string{"", " \n\t\n"} {
		res := run(desc, nil, nil)
		if res.Conclusion != checks.Skipped || res.Summary == "" {
			t.Errorf("%q: conclusion %s, summary %q; want skipped with a reason", desc, res.Conclusion, res.Summary)
		}
	}
}

// TestHeadCannotRelax: the level and the ignored rules of the base hold;
// the head can only add failures.
func TestHeadCannotRelax(t *testing.T) {
	t.Parallel()
	md := seed(t, "004_e73a9411de5f931a.md") // 3 sentence-length problems
	strict, lax := config.Default(), config.Default()
	strict.Description.Level = config.DescriptionFail
	lax.Description.Ignore = []string{housestyle.RuleSentenceLength}
	tests := []struct {
		name       string
		base, head *config.Config
		want       checks.Conclusion
		findings   int
	}{
		{"base fails, head warns", strict, config.Default(), checks.Failure, 3},
		{"head fails, base warns", config.Default(), strict, checks.Failure, 3},
		{"head ignores, base does not", config.Default(), lax, checks.Success, 3},
		{"both ignore", lax, lax, checks.Success, 0},
		{"no base config, head ignores", nil, lax, checks.Success, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := run(md, tc.base, tc.head)
			if res.Conclusion != tc.want || len(res.Findings) != tc.findings {
				t.Errorf("conclusion %s with %d findings, want %s with %d", res.Conclusion, len(res.Findings), tc.want, tc.findings)
			}
		})
	}
}

// TestClean: a description with no problem passes and says so.
func TestClean(t *testing.T) {
	t.Parallel()
	md := "## Purpose\n\nThe restore step now also restores test files.\n\n## Verification\n\n- pytest tests/docker: 448 passed.\n"
	res := run(md, nil, nil)
	if res.Conclusion != checks.Success || len(res.Findings) != 0 {
		t.Errorf("conclusion %s, findings %+v; want success with none", res.Conclusion, res.Findings)
	}
}
