package restore

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// TestVerdictsJudgeTheChange runs the restore check on a base and a head
// script and checks that it judges the change, not the repository: a
// failure that the base's step has too is a warning, a refusal may exit
// with any code, and the step runs under the script's shell options and
// variables.
func TestVerdictsJudgeTheChange(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a few scenarios on eleven pairs of scripts")
	}
	// A harmless edit inside the restore section.
	reword := func(s string) string {
		return strings.Replace(s, "# Put agent edits to protected paths back", "# Put the agent's edits to protected paths back", 1)
	}
	restoreKey := func(line string) func(string) string {
		return func(cfg string) string { return strings.Replace(cfg, "restore:\n", "restore:\n  "+line+"\n", 1) }
	}
	strict := func(cfg string) string { return "pre_existing: fail\n" + cfg }
	pass, fail := scenarioResult{Verdict: Pass}, scenarioResult{Verdict: Fail}
	before := scenarioResult{Verdict: Fail, PreExisting: true} // fails before this change
	cases := []struct {
		name       string
		base, head string
		headEdit   func(string) string // applied to the head script
		otherFile  bool                // the head changes only another file
		baseCfg    func(string) string // applied to the base config
		cfg        func(string) string // applied to the config at base and head
		scenarios  []string
		want       checks.Conclusion
		verdicts   map[string]scenarioResult // scenario -> its result
		atBase     map[string]Verdict        // scenario -> the base's verdict ("": not run); nil: the base side did not run
		unchanged  bool                      // the step is the same at base: the base side is not run, its failures are the head's
		finding    string                    // a finding message holds this
		level      checks.Level              // at this level
		note       string                    // a note holds this
	}{
		{
			// Issue 9, first false alarm: the base's step already fails the
			// scenario; the PR only rewords a comment of the step.
			name: "fails before this change", base: "spaces.sh", head: "spaces.sh", headEdit: reword,
			scenarios: []string{"add-benchmark-with-space", "edit-test-file"},
			want:      checks.Success,
			verdicts:  map[string]scenarioResult{"add-benchmark-with-space": before, "edit-test-file": pass},
			atBase:    map[string]Verdict{"add-benchmark-with-space": Fail, "edit-test-file": ""},
			finding:   "Scenario add-benchmark-with-space: benchmarks/sp ace.py: still present, the model deletes it", level: checks.LevelWarning,
		},
		{
			name: "step unchanged: nothing can fail the PR", base: "spaces.sh", head: "spaces.sh", otherFile: true,
			scenarios: []string{"add-benchmark-with-space", "edit-test-file"},
			want:      checks.Success,
			verdicts:  map[string]scenarioResult{"add-benchmark-with-space": before, "edit-test-file": pass},
			atBase:    map[string]Verdict{"add-benchmark-with-space": Fail}, unchanged: true,
			note: "The restore step and policy are the same bytes at base and head in 1 variable set. No restore result can fail this PR.",
		},
		{
			name: "pre_existing: fail at the base keeps the strict gate", base: "spaces.sh", head: "spaces.sh", headEdit: reword, baseCfg: strict,
			scenarios: []string{"add-benchmark-with-space"},
			want:      checks.Failure,
			verdicts:  map[string]scenarioResult{"add-benchmark-with-space": before},
			atBase:    map[string]Verdict{"add-benchmark-with-space": Fail},
			finding:   "The base's step fails it with the same differences", level: checks.LevelFailure,
		},
		{
			name: "a failure only at head fails", base: "good.sh", head: "spaces.sh",
			scenarios: []string{"add-benchmark-with-space", "edit-test-file"},
			want:      checks.Failure,
			verdicts:  map[string]scenarioResult{"add-benchmark-with-space": fail, "edit-test-file": pass},
			atBase:    map[string]Verdict{"add-benchmark-with-space": Pass},
			finding:   "this PR causes the failure", level: checks.LevelFailure,
		},
		{
			// Issue 9, second false alarm: a step that refuses to grade
			// exits 1, writes ran: false and touches nothing.
			name: "a refusal may exit 1", base: "good.sh", head: "refuse-exit1.sh",
			scenarios: []string{"no-baseline-file", "unrelated-checkout", "edit-test-file"},
			want:      checks.Success,
			verdicts:  map[string]scenarioResult{"no-baseline-file": pass, "unrelated-checkout": pass, "edit-test-file": pass},
		},
		{
			name: "refusal_exit: zero judges the code", base: "good.sh", head: "refuse-exit1.sh", cfg: restoreKey("refusal_exit: zero"),
			scenarios: []string{"no-baseline-file", "edit-test-file"},
			want:      checks.Failure,
			verdicts:  map[string]scenarioResult{"no-baseline-file": fail, "edit-test-file": pass},
			atBase:    map[string]Verdict{"no-baseline-file": Pass},
			finding:   "the step refuses (no baseline sha file) with exit code 1; restore.refusal_exit wants 0", level: checks.LevelFailure,
		},
		{
			name: "refusal_exit: nonzero judges the code", base: "refuse-exit1.sh", head: "good.sh", cfg: restoreKey("refusal_exit: nonzero"),
			scenarios: []string{"no-baseline-file"},
			want:      checks.Failure,
			verdicts:  map[string]scenarioResult{"no-baseline-file": fail},
			atBase:    map[string]Verdict{"no-baseline-file": Pass},
			finding:   "with exit code 0; restore.refusal_exit wants a non-zero code", level: checks.LevelFailure,
		},
		{
			name: "a step that aborts under set -e fails with the line", base: "good.sh", head: "aborts.sh",
			scenarios: []string{"no-change", "edit-test-file"},
			want:      checks.Failure,
			verdicts:  map[string]scenarioResult{"no-change": fail, "edit-test-file": pass},
			atBase:    map[string]Verdict{"no-change": Pass},
			finding:   "the step exits with code 1; it stops under set -e at line 55 of the rendered script: `_fc_changed=\"$(git -C /workspace/repo status --porcelain | grep -c .)\"`", level: checks.LevelFailure,
			note: "with the shell options errexit, nounset, pipefail",
		},
		{
			name: "variables set before the section", base: "good.sh", head: "prelude-var.sh",
			scenarios: []string{"edit-test-file", "no-baseline-file"},
			want:      checks.Success,
			verdicts:  map[string]scenarioResult{"edit-test-file": pass, "no-baseline-file": pass},
			note:      "the variable _fc_report, as the script sets them before the section",
		},
		{
			name: "fallback to the rendered base_commit", base: "good.sh", head: "fallback.sh", cfg: restoreKey("fallback: base_commit"),
			scenarios: []string{"no-baseline-file", "unrelated-checkout", "edit-test-file"},
			want:      checks.Success,
			verdicts:  map[string]scenarioResult{"no-baseline-file": pass, "unrelated-checkout": pass, "edit-test-file": pass},
		},
		{
			name: "a refusal where the config names the fallback fails", base: "fallback.sh", head: "good.sh", cfg: restoreKey("fallback: base_commit"),
			scenarios: []string{"no-baseline-file"},
			want:      checks.Failure,
			verdicts:  map[string]scenarioResult{"no-baseline-file": fail},
			atBase:    map[string]Verdict{"no-baseline-file": Pass},
			finding:   "report.ran is false, the model expects true", level: checks.LevelFailure,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := readTestdata(t, "config.yml")
			if c.cfg != nil {
				cfg = c.cfg(cfg)
			}
			baseCfg := cfg
			if c.baseCfg != nil {
				baseCfg = c.baseCfg(cfg)
			}
			head := map[string]string{}
			if c.otherFile {
				head["README.md"] = "A change that does not touch the templates.\n"
			} else {
				s := script(t, c.head)
				if c.headEdit != nil {
					s = c.headEdit(s)
				}
				head["tpl/tests/test.sh"] = s
			}
			if baseCfg != cfg {
				head[config.Path] = cfg
			}
			v := makeVerified(t, map[string]string{config.Path: baseCfg, "tpl/tests/test.sh": script(t, c.base)}, head)
			in := inputFor(t, v)
			in.Config.Restore.Random.Count = 0
			res, ri := New().WithOptions(Options{Catalogue: scenarios(t, c.scenarios...)}).run(context.Background(), in)
			if res.Conclusion != c.want {
				logFindings(t, res)
				t.Fatalf("conclusion %s, want %s: %s", res.Conclusion, c.want, res.Title)
			}
			got := outcomesOf(t, ri)
			for name, w := range c.verdicts {
				if got[name] != w {
					t.Errorf("%s: %+v, want %+v", name, got[name], w)
				}
			}
			if ri.cmp.Ran != (c.atBase != nil) || ri.cmp.Unchanged != c.unchanged {
				t.Errorf("the base side ran: %v (step unchanged: %v); want %v (%v)", ri.cmp.Ran, ri.cmp.Unchanged, c.atBase != nil, c.unchanged)
			}
			for i, o := range ri.catalogue {
				if w, ok := c.atBase[o.Scenario.Name]; ok && ri.cmp.Catalogue[i].Verdict != w {
					t.Errorf("%s: at base %q, want %q", o.Scenario.Name, ri.cmp.Catalogue[i].Verdict, w)
				}
			}
			if c.finding != "" && !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
				return f.Level == c.level && strings.Contains(f.Message, c.finding)
			}) {
				logFindings(t, res)
				t.Errorf("no %s finding holds %q", c.level, c.finding)
			}
			if c.note != "" && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, c.note) }) {
				t.Errorf("no note holds %q: %q", c.note, res.Notes)
			}
		})
	}
}

func TestExtractPrelude(t *testing.T) {
	script := `#!/bin/bash
set -euo pipefail
unused=1
LOG_DIR="/logs/artifacts"
FC_BASE="$(cat /opt/fc_baseline_sha 2>/dev/null || echo abc)"
if [ -n "${X:-}" ]; then OUT="$LOG_DIR/x"; fi
ts() { date -u; }
helper() { echo "$LOG_DIR"; }
set +u
source /etc/profile.d/x.sh || true
set -u
# ── Restore
echo "$(ts) restore against ${FC_BASE} into $OUT"
`
	start := 12
	sec := strings.Join(strings.SplitAfter(script, "\n")[start-1:], "")
	p, err := ExtractPrelude(script, start, sec)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"errexit", "nounset", "pipefail"}; !slices.Equal(p.Options, want) {
		t.Errorf("options %q, want %q", p.Options, want)
	}
	if want := []string{"FC_BASE", "LOG_DIR", "OUT"}; !slices.Equal(p.Vars, want) {
		t.Errorf("vars %q, want %q", p.Vars, want)
	}
	if want := []string{"ts"}; !slices.Equal(p.Funcs, want) {
		t.Errorf("funcs %q, want %q", p.Funcs, want)
	}
	for _, gone := range []string{"unused=1", "helper()", "source"} {
		if strings.Contains(p.Text, gone) {
			t.Errorf("the prelude holds %q:\n%s", gone, p.Text)
		}
	}
	if !strings.HasPrefix(p.Text, "set -euo pipefail\n") || !strings.HasSuffix(p.Text, "set +u\nset -u\n") {
		t.Errorf("the set commands are not kept in order:\n%s", p.Text)
	}
	if _, err := ExtractPrelude("if then\n# ── Restore\n", 2, "# ── Restore\n"); err == nil {
		t.Error("a script that does not parse before the section gives no error")
	}
	// A syntax error after the section does not matter.
	broken := script + "# ── Next\nif true; then\n"
	if p, err := ExtractPrelude(broken, start, sec); err != nil || !slices.Equal(p.Vars, []string{"FC_BASE", "LOG_DIR", "OUT"}) {
		t.Errorf("with a syntax error after the section: %q, %v", p.Vars, err)
	}
}

// TestPreExistingRandomSetsAreNotShrunk: shrinking costs up to
// ShrinkRuns runs per set, spent only on failures this change causes.
func TestPreExistingRandomSetsAreNotShrunk(t *testing.T) {
	t.Parallel()
	cfg := readTestdata(t, "config.yml")
	v := makeVerified(t, map[string]string{config.Path: cfg, "tpl/tests/test.sh": script(t, "keeps-added.sh")},
		map[string]string{"README.md": "A change beside the templates.\n"})
	in := inputFor(t, v)
	in.Config.Restore.Random.Count = 8
	res := New().WithOptions(Options{Catalogue: scenarios(t, "no-change"), ShrinkRuns: 4, Keep: true, Cache: t.TempDir()}).Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	before := 0
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Title, "Random restore set ") {
			t.Errorf("a pre-existing random set is shrunk: %s", f.Title)
		}
		if f.Title == "Random restore sets fail before this change" {
			before++
		}
	}
	if before != 1 {
		t.Fatalf("no random set fails before this change, so the test shows nothing: %+v", res.Findings)
	}
	for _, f := range res.Figures {
		if f.Label == "Random restore sets" && !strings.Contains(f.Value, "fail before this change") {
			t.Errorf("figure %q does not count the sets that fail before this change", f.Value)
		}
	}
	// Keep leaves one folder per scenario run. The test's own cache
	// folder holds no probe, so the probe runs too.
	runs, err := filepath.Glob(filepath.Join(in.WorkDir, "restore-*", "[0-9][0-9][0-9][0-9]-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 10 {
		t.Errorf("%d scenario runs, want 10 (the policy probe, 1 named, 8 random, no shrink run; the step is the same at base, so the base reuses the probe)", len(runs))
	}
}
