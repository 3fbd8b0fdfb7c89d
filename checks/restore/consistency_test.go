package restore

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fixture"
)

// TestConsistencyScenariosCoverEveryProtectedPath: each edit kind edits
// every protected path and the same sample of left paths, and the names
// it adds or renames to are only names the probe learned.
func TestConsistencyScenariosCoverEveryProtectedPath(t *testing.T) {
	t.Parallel()
	base := fixture.Project()
	learned := map[string]bool{}
	for _, p := range base.Paths() {
		if !base[p].IsSymlink() {
			learned[p] = strings.HasPrefix(p, "tests/") || strings.HasPrefix(p, "benchmarks/")
		}
	}
	added := addedNames(base)
	renamed := ""
	for p, n := range added {
		if path.Dir(p) == "tests" {
			renamed = p
			learned[n] = true // the probe learned this added name only
		}
	}
	if renamed == "" {
		t.Fatalf("no added name in tests/: %v", added)
	}
	protected, left := consistencyPaths(base, learned)
	if len(protected) == 0 || len(left) == 0 || len(left) > maxLeftSample {
		t.Fatalf("%d protected, %d left (at most %d)", len(protected), len(left), maxLeftSample)
	}
	got := consistencyScenarios(base, learned)
	if len(got) != len(consistencyKinds) {
		t.Fatalf("%d scenarios, want one per edit kind (%d)", len(got), len(consistencyKinds))
	}
	if len(protected) > maxProtectedSample {
		t.Errorf("%d protected paths, at most %d", len(protected), maxProtectedSample)
	}
	for _, sc := range got {
		touched := map[string]bool{}
		for _, e := range sc.Edits {
			touched[e.Path] = true
			if e.Op == OpMove || e.Op == OpWrite {
				n := e.Arg
				if e.Op == OpWrite {
					n = e.Path
				}
				if _, ok := learned[n]; !ok {
					t.Errorf("%s: %s adds %s, which the probe did not learn", sc.Name, e.Op, n)
				}
			}
		}
		if sc.Name == "consistency-delete-folder" {
			continue
		}
		for _, p := range append(slices.Clone(protected), left...) {
			if sc.Name == "consistency-rename" && p != renamed {
				continue // renamed only to a learned name
			}
			if !touched[p] {
				t.Errorf("%s does not edit %s", sc.Name, p)
			}
		}
	}
	if consistencyScenarios(base, nil) != nil {
		t.Error("consistency scenarios without a learned policy")
	}
}

// deleteBugStep is the clean case-glob step with one edit kind treated
// otherwise: deleted files are put back only under tests/ and
// benchmarks/, so a deleted .snapshots/, .github/ or conftest.py file
// stays deleted although an edit of it is put back.
func deleteBugStep(seed uint64) string {
	s := shapeBash(styleCase, bugNone, cosmeticOf(seed))
	s = strings.Replace(s, `git diff --name-only -z --no-renames "$_rs_base" --`, `git diff --name-only -z --no-renames --diff-filter=d "$_rs_base" --`, 1)
	return strings.Replace(s, "done < \"$_rs_list\"\n", "done < \"$_rs_list\"\n  git diff --name-only -z --diff-filter=D \"$_rs_base\" -- tests benchmarks | xargs -0 -r git checkout -q \"$_rs_base\" --\n", 1)
}

// TestConsistencyCatchesAnEditKindTreatedOtherwise: a step that puts a
// path back after an edit but not after a delete fails the delete
// consistency scenarios, each violation naming the scenario, the path and
// the step's template line; the fixed catalogue's delete scenarios
// (tests/ and benchmarks/) pass it. The clean step passes every
// consistency scenario.
func TestConsistencyCatchesAnEditKindTreatedOtherwise(t *testing.T) {
	t.Parallel()
	const seed = 5
	clean := shapeFiles(styleCase, bugNone, seed, "")
	buggy := shapeFiles(styleCase, bugNone, seed, " Deleted files go back only under tests/ and benchmarks/.")
	buggy["tpl/tests/test.sh"] = strings.Replace(buggy["tpl/tests/test.sh"], shapeBash(styleCase, bugNone, cosmeticOf(seed)), deleteBugStep(seed), 1)
	if buggy["tpl/tests/test.sh"] == clean["tpl/tests/test.sh"] {
		t.Fatal("the bug is not seeded")
	}
	opts := Options{Catalogue: scenarios(t, "no-change", "delete-test-file", "delete-benchmark"), Consistency: true}
	res, ri := New().WithOptions(opts).run(context.Background(), inputFor(t, makeVerified(t, clean, buggy)))
	if ri == nil {
		logFindings(t, res)
		t.Fatalf("no scenario ran: %s", res.Title)
	}
	failed := map[string]Outcome{}
	for i, o := range ri.catalogue {
		if o.Verdict != Pass {
			failed[o.Scenario.Name] = o
			if b := cmpAt(ri.cmp.Catalogue, i); b.PreExisting || b.Verdict != Pass {
				t.Errorf("%s: the base's (clean) step gives %q; it passes at base", o.Scenario.Name, b.Verdict)
			}
		}
	}
	for _, name := range []string{"no-change", "delete-test-file", "delete-benchmark"} {
		if _, ok := failed[name]; ok {
			t.Errorf("catalogue scenario %s fails: the bug is not in tests/ or benchmarks/", name)
		}
	}
	if res.Conclusion != checks.Failure {
		logFindings(t, res)
		t.Fatalf("conclusion %s, want failure: the step does not put back deleted protected files outside tests/ and benchmarks/", res.Conclusion)
	}
	// A rename is a delete of the old name too.
	bugKinds := []string{"consistency-delete", "consistency-delete-folder", "consistency-rename"}
	for _, name := range bugKinds {
		if _, ok := failed[name]; !ok {
			t.Errorf("scenario %s passes; failed: %v", name, failedNames(failed))
		}
	}
	for name := range failed {
		if !slices.Contains(bugKinds, name) {
			t.Errorf("scenario %s fails too: %q", name, failed[name].Diffs)
		}
	}
	// The first differences are of .github/ (paths sort so): deleted,
	// and not put back.
	const want = ".github/workflows/"
	if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
		return f.Level == checks.LevelFailure && strings.Contains(f.Title, "consistency-delete") &&
			strings.Contains(f.Message, want) && strings.Contains(f.Message, "missing, the model restores it from base") &&
			f.Path == "tpl/tests/test.sh" && f.Line > 0
	}) {
		logFindings(t, res)
		t.Errorf("no failure names scenario consistency-delete, a path under %s that is missing, and the step's template line", want)
	}
}

func failedNames(m map[string]Outcome) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
