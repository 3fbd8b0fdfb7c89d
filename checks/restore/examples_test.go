package restore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
)

var (
	exampleOnce sync.Once
	exampleRepo *examples.Built
	exampleErr  error
	exampleDir  string
)

// example builds the bundled example repository once for all tests.
func example(t *testing.T) *examples.Built {
	t.Helper()
	exampleOnce.Do(func() {
		exampleDir, exampleErr = osMkdirTemp("restore-example-")
		if exampleErr == nil {
			exampleRepo, exampleErr = examples.Build(context.Background(), exampleDir)
		}
	})
	if exampleErr != nil {
		t.Fatalf("build the example: %v", exampleErr)
	}
	return exampleRepo
}

// exampleInput is the check input for the example at one head, built as
// the run command builds it.
func exampleInput(t *testing.T, head string) *checks.Input {
	t.Helper()
	ctx := context.Background()
	b := example(t)
	repo := gitx.Repo{Dir: b.Dir}
	sha, ok := b.Heads[head]
	if !ok {
		t.Fatalf("the example has no head %q", head)
	}
	decode := func(rev string) *config.Config {
		data, found, err := repo.ReadFile(ctx, rev, config.Path)
		if err != nil || !found {
			t.Fatalf("read %s at %s: found %v, %v", config.Path, rev, found, err)
		}
		cfg, err := config.Decode(config.Path, data)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := decode(sha)
	p, err := plan.Build(ctx, repo, cfg, b.BaseOf(head), sha)
	if err != nil {
		t.Fatal(err)
	}
	p.BaseRev, p.HeadRev = examples.BaseBranchOf(head), head
	return &checks.Input{Repo: b.Dir, Plan: p, Config: cfg, BaseConfig: decode(b.BaseOf(head)), WorkDir: t.TempDir()}
}

// TestExampleHeadsThatDoNotChangeTheStep runs the check on the example's
// heads whose restore step renders the same at base and head: a refactor
// with the same output, and a prompt change on a base whose step already
// fails scenarios. Neither can fail; the second shows the base's failures
// as "fails before this change".
func TestExampleHeadsThatDoNotChangeTheStep(t *testing.T) {
	t.Parallel()
	cases := []struct {
		head   string
		before []string // scenarios that fail before this change
		pass   []string
	}{
		{head: examples.HeadRefactor, pass: []string{"no-change", "add-benchmark-with-space", "committed-edit", "no-baseline-file", "unrelated-checkout"}},
		{head: examples.HeadFailingBase, before: []string{"add-benchmark-with-space", "quotes-and-backslash-in-name"}, pass: []string{"edit-test-file", "no-change"}},
	}
	for _, c := range cases {
		t.Run(c.head, func(t *testing.T) {
			t.Parallel()
			in := exampleInput(t, c.head)
			in.Config.Restore.Random.Count = 0
			res, ri := New().WithOptions(Options{Catalogue: scenarios(t, append(c.before, c.pass...)...)}).run(context.Background(), in)
			if res.Conclusion != checks.Success {
				logFindings(t, res)
				t.Fatalf("conclusion %s, want success: %s", res.Conclusion, res.Title)
			}
			got := outcomesOf(t, ri)
			for _, name := range c.before {
				if got[name] != (scenarioResult{Verdict: Fail, PreExisting: true}) {
					t.Errorf("%s: %+v, want a failure the base has too", name, got[name])
				}
			}
			for _, name := range c.pass {
				if got[name].Verdict != Pass {
					t.Errorf("%s: %+v, want pass", name, got[name])
				}
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool {
				return strings.HasPrefix(n, "The restore step and policy are the same bytes at base and head in 4 variable sets.")
			}) {
				t.Errorf("no note says the step is unchanged: %q", res.Notes)
			}
			for _, f := range res.Findings {
				if f.Level == checks.LevelFailure {
					t.Errorf("failure finding: %s", f.Message)
				}
			}
		})
	}
}

// TestUnchangedStepRunsNoScenario: on the example's heads whose restore
// step renders the same at base and head, the check runs no scenario and
// says so as skipped, never as passed. With pre_existing: fail the base's
// failures fail the PR, so there the scenarios run and the failing base
// fails the check.
func TestUnchangedStepRunsNoScenario(t *testing.T) {
	t.Parallel()
	cases := []struct {
		head   string
		strict bool
		want   checks.Conclusion
	}{
		{head: examples.HeadRefactor, want: checks.Skipped},
		{head: examples.HeadFailingBase, want: checks.Skipped},
		{head: examples.HeadFailingBase, strict: true, want: checks.Failure},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/strict=%v", c.head, c.strict), func(t *testing.T) {
			t.Parallel()
			in := exampleInput(t, c.head)
			in.Config.Restore.Random.Count = 0
			in.BaseConfig.Restore.Random.Count = 0
			if c.strict {
				in.BaseConfig.PreExisting = config.PreExistingFail
			}
			// A time limit no loaded machine reaches: a timed-out probe or
			// scenario would change the conclusion under test.
			res, ri := New().WithOptions(Options{ScenarioTimeout: 10 * time.Minute}).run(context.Background(), in)
			if res.Conclusion != c.want {
				logFindings(t, res)
				t.Fatalf("conclusion %s, want %s: %s", res.Conclusion, c.want, res.Title)
			}
			if c.want != checks.Skipped {
				if ri == nil || len(ri.catalogue) == 0 {
					t.Fatalf("no scenario ran under pre_existing: fail")
				}
				return
			}
			if ri != nil {
				t.Errorf("%d scenarios ran for a step that did not change", len(ri.catalogue)+len(ri.random))
			}
			if !strings.Contains(res.Summary, "the same bytes at base and head in 4 variable sets") || !strings.Contains(res.Summary, "No scenario ran") {
				t.Errorf("summary does not say what was compared: %q", res.Summary)
			}
		})
	}
}

// TestExampleBadHeadKeepsTheStep runs the check on the example's bad head:
// its syntax error comes after the restore section, so the step still
// runs with the script's options and variables, and passes.
func TestExampleBadHeadKeepsTheStep(t *testing.T) {
	t.Parallel()
	in := exampleInput(t, examples.HeadBad)
	in.Config.Restore.Random.Count = 0
	res := New().WithOptions(Options{Catalogue: scenarios(t, "no-change", "committed-edit", "no-baseline-file", "unrelated-checkout")}).Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s, want success: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "the variable _fc_patch_base") }) {
		t.Errorf("no note names the variable the step reads: %q", res.Notes)
	}
}

// readExampleTemplate is the file path of the example at head.
func readExampleTemplate(t *testing.T, head, path string) string {
	t.Helper()
	b := example(t)
	data, found, err := gitx.Repo{Dir: b.Dir}.ReadFile(context.Background(), b.Heads[head], path)
	if err != nil || !found {
		t.Fatalf("read %s at %s: found %v, %v", path, head, found, err)
	}
	return string(data)
}
