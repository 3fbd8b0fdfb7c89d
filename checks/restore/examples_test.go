package restore

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

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

func TestExampleGoodHeadPassesEveryScenario(t *testing.T) {
	in := exampleInput(t, examples.HeadGood)
	// Ten random sets keep the test short; the check itself runs the 40
	// of the example's config.
	in.Config.Restore.Random.Count = 10
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	v := verdicts(t, res)
	for _, sc := range Catalogue() {
		if v[sc.Name] != string(Pass) {
			t.Errorf("%s: %q", sc.Name, v[sc.Name])
		}
	}
	if got := v["random sets (seed 1)"]; got != "10 of 10 pass" {
		t.Errorf("random sets: %q", got)
	}
	// The good head adds the three test-file patterns: the policy change
	// is shown as a warning and a note.
	var warned bool
	for _, f := range res.Findings {
		if f.Level == checks.LevelWarning && f.Title == "The restore policy changes" && f.Path == config.Path {
			warned = strings.Contains(f.Message, "adds 3 and removes 0")
		}
	}
	if !warned {
		t.Errorf("no warning about the 3 added patterns: %+v", res.Findings)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "Patterns added: `(^|/)tests?/`, `(^|/)test_[^/]*\\.py$`, `(^|/)[^/]*_test\\.py$`. Patterns removed: none.")
	}) {
		t.Errorf("notes: %q", res.Notes)
	}
	for _, row := range res.Tables[0].Rows {
		t.Logf("%s | %s | %s", row[0], row[1], row[2])
	}
	for _, f := range res.Figures {
		t.Logf("%s: %s", f.Label, f.Value)
	}
}

func TestExampleBadRestoreHeadsFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalogue on four heads")
	}
	cases := []struct {
		head       string
		fail, pass []string
	}{
		{
			// Seed 003: a restore from HEAD misses what the agent committed.
			head: examples.HeadRestoreFromHead,
			fail: []string{"committed-edit", "committed-add", "several-commits"},
			pass: []string{"unstaged-edit", "staged-edit", "untracked-file", "edit-test-file", "no-change"},
		},
		{
			head: examples.HeadRestoreSpaces,
			fail: []string{"add-benchmark-with-space", "quotes-and-backslash-in-name", "fix-plus-tampering"},
			pass: []string{"edit-test-file", "committed-edit", "delete-benchmark", "no-change"},
		},
		{
			head: examples.HeadRestoreKeepsAdded,
			fail: []string{"add-test-file", "add-github-workflow", "add-benchmark-with-space", "untracked-file", "committed-add", "rename-test-file"},
			pass: []string{"edit-test-file", "delete-test-file", "mode-change", "file-to-symlink", "committed-edit"},
		},
		{
			// Restores against HEAD without the baseline file: misses the
			// agent's commit.
			head: examples.HeadRestoreNoBaseline,
			fail: []string{"no-baseline-file"},
			pass: []string{"committed-edit", "unrelated-checkout", "fix-plus-tampering", "no-change"},
		},
		{
			// Stops under the script's set -euo pipefail when the agent's
			// tree is clean; plain bash would pass every scenario.
			head: examples.HeadRestoreAborts,
			fail: []string{"no-change", "committed-edit", "edit-then-revert", "no-baseline-file"},
			pass: []string{"edit-test-file", "untracked-file", "unstaged-edit"},
		},
	}
	for _, c := range cases {
		t.Run(c.head, func(t *testing.T) {
			in := exampleInput(t, c.head)
			in.Config.Restore.Random.Count = 0 // the catalogue is enough here
			// Only the scenarios the case names, to keep the test short;
			// TestGoodScriptPassesEveryScenario runs them all.
			res := New().WithOptions(Options{Catalogue: scenarios(t, append(c.fail, c.pass...)...)}).Run(context.Background(), in)
			if res.Conclusion != checks.Failure {
				t.Fatalf("conclusion %s, want failure: %s", res.Conclusion, res.Title)
			}
			v := verdicts(t, res)
			for _, name := range c.fail {
				if v[name] != string(Fail) {
					t.Errorf("%s: verdict %q, want fail", name, v[name])
				}
			}
			for _, name := range c.pass {
				if v[name] != string(Pass) {
					t.Errorf("%s: verdict %q, want pass", name, v[name])
				}
			}
			if t.Failed() {
				logFindings(t, res)
			}
		})
	}
}

// TestExampleHeadsThatDoNotChangeTheStep runs the check on the example's
// heads whose restore step renders the same at base and head: a refactor
// with the same output, and a prompt change on a base whose step already
// fails scenarios. Neither can fail; the second shows the base's failures
// as "fails before this change".
func TestExampleHeadsThatDoNotChangeTheStep(t *testing.T) {
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
			in := exampleInput(t, c.head)
			in.Config.Restore.Random.Count = 0
			res := New().WithOptions(Options{Catalogue: scenarios(t, append(c.before, c.pass...)...)}).Run(context.Background(), in)
			if res.Conclusion != checks.Success {
				logFindings(t, res)
				t.Fatalf("conclusion %s, want success: %s", res.Conclusion, res.Title)
			}
			v := verdicts(t, res)
			for _, name := range c.before {
				if v[name] != verdictBefore {
					t.Errorf("%s: verdict %q, want %q", name, v[name], verdictBefore)
				}
			}
			for _, name := range c.pass {
				if v[name] != string(Pass) {
					t.Errorf("%s: verdict %q, want pass", name, v[name])
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

// TestExampleBadHeadKeepsTheStep runs the check on the example's bad head:
// its syntax error comes after the restore section, so the step still
// runs with the script's options and variables, and passes.
func TestExampleBadHeadKeepsTheStep(t *testing.T) {
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
