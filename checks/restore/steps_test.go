package restore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// scenarioResult is what one scenario gave, as data: the verdict at head,
// and whether the base's step fails it the same way.
type scenarioResult struct {
	Verdict     Verdict
	PreExisting bool
}

// outcomesOf maps each catalogue scenario of a check run to its result.
func outcomesOf(t *testing.T, ri *resultInput) map[string]scenarioResult {
	t.Helper()
	if ri == nil {
		t.Fatal("no scenario ran")
	}
	out := map[string]scenarioResult{}
	for i, o := range ri.catalogue {
		out[o.Scenario.Name] = scenarioResult{o.Verdict, cmpAt(ri.cmp.Catalogue, i).PreExisting}
	}
	return out
}

// TestStepVerdicts runs restore steps, each with a known bug or none, and
// checks the conclusion, the verdict of each scenario that exposes the
// bug (fail) or does not (pass), and where the failure findings point.
// The steps are the bundled example's heads (the real datasmith template
// with one bug each, as a pull request would bring it) and the test's own
// scripts (testdata/scripts) where the example has no such head.
func TestStepVerdicts(t *testing.T) {
	t.Parallel()
	all := func() []string {
		var names []string
		for _, sc := range Catalogue() {
			names = append(names, sc.Name)
		}
		return names
	}
	cases := []struct {
		name string
		in   func(t *testing.T) *checks.Input
		// random is the number of random sets; 0 runs none.
		random     int
		want       checks.Conclusion
		fail, pass []string
		// line is the line of the failure findings in the template; 0:
		// the section's line in the step.
		line int
	}{
		{
			// The good head passes every scenario that one of the bad
			// heads below fails, and random sets. The whole catalogue, the
			// generated scenarios and 10 random sets on this head are
			// TestDemoGolden's (cmd/template-verify, demo-good.md: "53 of
			// 53 restore scenarios and 10 of 10 random sets"); good.sh
			// below runs the whole catalogue in this package.
			name:   "example good head",
			in:     func(t *testing.T) *checks.Input { return exampleInput(t, examples.HeadGood) },
			random: 2, want: checks.Success,
			pass: []string{"committed-edit", "committed-add", "several-commits", "add-benchmark-with-space", "quotes-and-backslash-in-name",
				"fix-plus-tampering", "add-test-file", "add-github-workflow", "untracked-file", "rename-test-file", "no-baseline-file",
				"no-change", "edit-then-revert", "glob-characters-in-name", "unrelated-checkout"},
		},
		{
			name: "good.sh", in: func(t *testing.T) *checks.Input { return scriptInput(t, "good.sh") },
			want: checks.Success, pass: all(),
		},
		{
			// A restore from HEAD misses what the agent committed.
			name: "example head " + examples.HeadRestoreFromHead,
			in:   func(t *testing.T) *checks.Input { return exampleInput(t, examples.HeadRestoreFromHead) },
			want: checks.Failure,
			fail: []string{"committed-edit", "committed-add", "several-commits"},
			pass: []string{"unstaged-edit", "staged-edit", "untracked-file", "add-test-file", "edit-test-file", "no-change"},
		},
		{
			name: "example head " + examples.HeadRestoreSpaces,
			in:   func(t *testing.T) *checks.Input { return exampleInput(t, examples.HeadRestoreSpaces) },
			want: checks.Failure,
			fail: []string{"add-benchmark-with-space", "quotes-and-backslash-in-name", "fix-plus-tampering"},
			pass: []string{"edit-test-file", "committed-edit", "delete-benchmark", "no-change"},
		},
		{
			name: "example head " + examples.HeadRestoreKeepsAdded,
			in:   func(t *testing.T) *checks.Input { return exampleInput(t, examples.HeadRestoreKeepsAdded) },
			want: checks.Failure,
			fail: []string{"add-test-file", "add-github-workflow", "add-benchmark-with-space", "untracked-file", "committed-add", "rename-test-file"},
			pass: []string{"edit-test-file", "delete-test-file", "mode-change", "file-to-symlink", "committed-edit"},
		},
		{
			// Restores against HEAD without the baseline file: misses the
			// agent's commit.
			name: "example head " + examples.HeadRestoreNoBaseline,
			in:   func(t *testing.T) *checks.Input { return exampleInput(t, examples.HeadRestoreNoBaseline) },
			want: checks.Failure,
			fail: []string{"no-baseline-file"},
			pass: []string{"committed-edit", "unrelated-checkout", "fix-plus-tampering", "no-change"},
		},
		{
			// Stops under the script's set -euo pipefail when the agent's
			// tree is clean; plain bash would pass every scenario.
			name: "example head " + examples.HeadRestoreAborts,
			in:   func(t *testing.T) *checks.Input { return exampleInput(t, examples.HeadRestoreAborts) },
			want: checks.Failure,
			fail: []string{"no-change", "committed-edit", "edit-then-revert", "no-baseline-file"},
			pass: []string{"edit-test-file", "untracked-file", "unstaged-edit"},
		},
		{
			// The example has no head with this bug.
			name: "glob.sh", in: func(t *testing.T) *checks.Input { return scriptInput(t, "glob.sh") },
			want: checks.Failure, line: 10,
			fail: []string{"glob-characters-in-name"},
			pass: []string{"add-benchmark-with-space", "edit-test-file"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := c.in(t)
			in.Config.Restore.Random.Count = c.random
			// Only the scenarios the case names, to keep the test short.
			res, ri := New().WithOptions(Options{Catalogue: scenarios(t, append(c.fail, c.pass...)...)}).run(context.Background(), in)
			if res.Conclusion != c.want {
				logFindings(t, res)
				t.Fatalf("conclusion %s, want %s: %s", res.Conclusion, c.want, res.Title)
			}
			got := outcomesOf(t, ri)
			line := c.line
			if line == 0 {
				line = ri.step.Line
			}
			for _, name := range c.fail {
				if got[name] != (scenarioResult{Verdict: Fail}) {
					t.Errorf("%s: %+v, want a failure this change causes", name, got[name])
				}
				if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
					return strings.HasPrefix(f.Message, "Scenario "+name+": ") && f.Level == checks.LevelFailure &&
						f.Path == ri.step.Template && f.Line == line && line > 0
				}) {
					t.Errorf("no failure finding at %s:%d for %s", ri.step.Template, line, name)
				}
			}
			for _, name := range c.pass {
				if got[name].Verdict != Pass {
					t.Errorf("%s: %+v, want pass", name, got[name])
				}
			}
			for _, o := range ri.random {
				if o.Verdict != Pass {
					t.Errorf("random set %s: %s %q", o.Scenario.Name, o.Verdict, o.Diffs)
				}
			}
			if len(ri.random) != c.random {
				t.Errorf("%d random sets ran, want %d", len(ri.random), c.random)
			}
			if c.want == checks.Success {
				if fs := slices.DeleteFunc(slices.Clone(res.Findings), func(f checks.Finding) bool { return f.Level != checks.LevelFailure }); len(fs) != 0 {
					t.Errorf("failure findings on a pass: %+v", fs)
				}
				n := len(c.pass)
				want := map[string]string{"Restore scenarios": fmt.Sprintf("%d of %d pass", n, n)}
				if c.random > 0 {
					want["Random restore sets"] = fmt.Sprintf("%d of %d pass (seed 1)", c.random, c.random)
				}
				for _, f := range res.Figures {
					if w, ok := want[f.Label]; ok {
						if f.Value != w {
							t.Errorf("figure %s = %q, want %q", f.Label, f.Value, w)
						}
						delete(want, f.Label)
					}
				}
				if len(want) > 0 {
					t.Errorf("figures missing: %v", want)
				}
			}
			if t.Failed() {
				logFindings(t, res)
			}
		})
	}
}

// TestExampleGoodHeadShowsThePolicyChange: the example's good head adds
// the three test-file patterns; the check shows it as a warning and a
// note, names the sandbox, and its figures name the command that
// reproduces the run.
func TestExampleGoodHeadShowsThePolicyChange(t *testing.T) {
	t.Parallel()
	in := exampleInput(t, examples.HeadGood)
	in.Config.Restore.Random.Count = 0
	res := New().WithOptions(Options{Catalogue: scenarios(t, "no-change")}).Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
		return f.Level == checks.LevelWarning && f.Title == "The restore policy changes" &&
			f.Path == "src/datasmith/harbor_adapter/template/tests/test.sh" && f.Line > 0 &&
			strings.Contains(f.Message, "adds 3 and removes 0")
	}) {
		t.Errorf("no warning about the 3 added patterns: %+v", res.Findings)
	}
	// The finding points at the template line of the grep that reads the
	// list.
	for _, f := range res.Findings {
		if f.Title == "The restore policy changes" {
			src := readExampleTemplate(t, examples.HeadGood, f.Path)
			if line := strings.Split(src, "\n")[f.Line-1]; !strings.Contains(line, "grep -zE") {
				t.Errorf("line %d of %s is %q, not the grep", f.Line, f.Path, line)
			}
		}
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "Patterns added: `(^|/)tests?/`, `(^|/)test_[^/]*\\.py$`, `(^|/)[^/]*_test\\.py$`. Patterns removed: none.")
	}) {
		t.Errorf("notes: %q", res.Notes)
	}
	wantNote := "without a sandbox"
	if sandbox.Available(context.Background()) {
		wantNote = "in a " + sandbox.Label(context.Background()) + " sandbox"
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, wantNote) }) {
		t.Errorf("no note says %q: %q", wantNote, res.Notes)
	}
	want := "template-verify run --repo . --base " + examples.BaseBranchOf(examples.HeadGood) + " --head " + examples.HeadGood + " --only restore"
	if !slices.ContainsFunc(res.Figures, func(f checks.Figure) bool { return f.Label == "Restore scenarios" && f.Command == want }) {
		t.Errorf("no figure with the command %q: %+v", want, res.Figures)
	}
}
