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

// ownNamesInput is a repository whose grader has its own names: another
// folder and file name, another pattern list (read from a here-document
// with grep -f), another checkout, baseline file and report, other
// report keys, and the base sha in {{ start_sha }}. The config names only
// the script and its section. The head's grade.sh is testdata/ownnames/
// base.sh with <head>.patch applied ("base": none).
func ownNamesInput(t *testing.T, head string) *checks.Input {
	t.Helper()
	return ownNamesInputWith(t, readTestdata(t, "ownnames/config.yml"), head)
}

func ownNamesInputWith(t *testing.T, cfg, head string) *checks.Input {
	t.Helper()
	const tpl = "task_templates/grade.sh"
	base := map[string]string{config.Path: cfg, tpl: readTestdata(t, "ownnames/base.sh")}
	v := makeVerified(t, base, map[string]string{tpl: ownNamesScript(t, head)})
	return inputFor(t, v)
}

// TestOwnNamesStepIsLearned: everything the model needs comes from the
// step. A correct step passes every scenario with no failure at the base
// (no noise from the tool's own assumptions); the head's added pattern
// shows as a policy change; a head that breaks names with spaces fails
// for its own scenarios, and the base's step passes them.
func TestOwnNamesStepIsLearned(t *testing.T) {
	t.Parallel()
	t.Run("good", func(t *testing.T) {
		t.Parallel()
		res, ri := New().run(context.Background(), ownNamesInput(t, "good"))
		if res.Conclusion != checks.Success || ri == nil {
			logFindings(t, res)
			t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
		}
		for _, o := range append(slices.Clone(ri.catalogue), ri.random...) {
			if o.Verdict != Pass {
				t.Errorf("scenario %s: %s %q", o.Scenario.Name, o.Verdict, o.Diffs)
			}
		}
		if ri.cmp.BaseRuns != 0 {
			t.Errorf("the base's step ran %d times; with no failure at head it should not run", ri.cmp.BaseRuns)
		}
		// The probe's scenarios: one per edit kind over every path the
		// head's probe shows protected, in place of the catalogue's
		// scenarios of one fixed path and two per pattern.
		var generated int
		for _, o := range ri.catalogue {
			if strings.HasPrefix(o.Scenario.Name, "pattern-") {
				t.Errorf("scenario %s: the probe's scenarios replace the pattern scenarios", o.Scenario.Name)
			}
			if strings.HasPrefix(o.Scenario.Name, "consistency-") {
				generated++
			}
		}
		if generated != len(consistencyKinds) {
			t.Errorf("%d consistency scenarios, want %d", generated, len(consistencyKinds))
		}
		wantNotes := []string{
			"The head's restore policy is the step's own list: 4 patterns read from task_templates/grade.sh",
			"The base's restore policy is the step's own list: 3 patterns",
			"Patterns added: `(^|/)tests?/`. Patterns removed: none.",
			"`restored` for the run flag, `start_sha` for the base sha, `reset` for the discarded paths, `left` for the remaining paths and `why` for the error",
			"These paths are read from the step itself: repository /srv/checkout, baseline file /srv/meta/start_rev, report /var/grade/out/reset_report.json.",
		}
		for _, want := range wantNotes {
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, want) }) {
				t.Errorf("no note says %q; notes:\n%s", want, strings.Join(res.Notes, "\n"))
			}
		}
	})
	t.Run("spaces", func(t *testing.T) {
		t.Parallel()
		// The catalogue judges the break; random sets would fail too and
		// be shrunk, which TestFailingRandomSetIsShrunk covers.
		in := ownNamesInput(t, "spaces")
		in.Config.Restore.Random.Count = 0
		res, ri := New().run(context.Background(), in)
		if res.Conclusion != checks.Failure || ri == nil {
			logFindings(t, res)
			t.Fatalf("conclusion %s, want failure: %s", res.Conclusion, res.Title)
		}
		var failed []string
		for i, o := range ri.catalogue {
			if o.Verdict == Pass {
				continue
			}
			failed = append(failed, o.Scenario.Name)
			if b := cmpAt(ri.cmp.Catalogue, i); b.PreExisting || b.Verdict != Pass {
				t.Errorf("scenario %s: the base's step gives %q (pre-existing %v); it passes at base", o.Scenario.Name, b.Verdict, b.PreExisting)
			}
		}
		// A consistency scenario with a name with a space catches it.
		if !slices.ContainsFunc(failed, func(n string) bool { return strings.HasPrefix(n, "consistency-") }) {
			t.Errorf("no consistency scenario fails: %q", failed)
		}
	})
}

// A config that states other patterns than the step's fails, naming both.
func TestConfigPatternsAreAnAssertion(t *testing.T) {
	t.Parallel()
	in := ownNamesInput(t, "base")
	in.Config.Restore.Patterns = []string{`^grading/`, `(^|/)fixtures?/`}
	in.Config.Restore.Random.Count = 0
	res := New().WithOptions(Options{Catalogue: scenarios(t, "no-change")}).Run(context.Background(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s, want failure: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
		return f.Level == checks.LevelFailure && f.Title == "The step's restore patterns differ from the config" &&
			strings.Contains(f.Message, "(^|/)pytest\\.ini$") && f.Path == "task_templates/grade.sh" && f.Line > 0
	}) {
		logFindings(t, res)
		t.Error("no failure names the pattern the config does not list")
	}
}

// TestRestoreStepIsFoundWithoutARestoreBlock: a config with only its own
// groups keeps the default restore block, and the check finds the step
// in the groups' shell templates (the grep over git's changed paths, under
// its header), learns that it refuses without the baseline file, and
// judges the head by it: the names-with-spaces break fails, and no
// scenario fails at the base.
func TestRestoreStepIsFoundWithoutARestoreBlock(t *testing.T) {
	t.Parallel()
	cfg := readTestdata(t, "ownnames/config.yml")
	cfg = cfg[:strings.Index(cfg, "# The restore block")]
	in := ownNamesInputWith(t, cfg, "spaces")
	if in.Config.Restore == nil || in.Config.Restore.Explicit {
		t.Fatalf("restore block %+v", in.Config.Restore)
	}
	// The catalogue judges the break; the default's 16 random sets would
	// fail too and be shrunk (TestFailingRandomSetIsShrunk's part).
	in.Config.Restore.Random.Count = 0
	res, ri := New().run(context.Background(), in)
	if res.Conclusion != checks.Failure || ri == nil {
		logFindings(t, res)
		t.Fatalf("conclusion %s, want failure: %s", res.Conclusion, res.Title)
	}
	for _, want := range []string{
		"The step is the part of tasks:grade.sh under `# ── Reset guarded files ──`",
		"Without the baseline file the step refuses",
	} {
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note says %q; notes:\n%s", want, strings.Join(res.Notes, "\n"))
		}
	}
	for i, o := range ri.catalogue {
		if b := cmpAt(ri.cmp.Catalogue, i); o.Verdict != Pass && b.Verdict != Pass {
			t.Errorf("scenario %s fails at the base too (%s): %q", o.Scenario.Name, b.Verdict, o.Diffs)
		}
	}
}

// ownNamesScript is testdata/ownnames/base.sh with <head>.patch applied,
// so each head's file shows only its change.
func ownNamesScript(t *testing.T, head string) string {
	t.Helper()
	if head == "base" {
		return readTestdata(t, "ownnames/base.sh")
	}
	return applyPatch(t, readTestdata(t, "ownnames/base.sh"), filepath.Join("testdata", "ownnames", head+".patch"))
}
