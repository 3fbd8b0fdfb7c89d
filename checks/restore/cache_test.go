package restore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestResultsAreReusedWhenTheStepIsTheSame: a PR that leaves the restore
// step the same bytes at base and head, on the same fixture, runs its
// scenarios once; a second run with the same inputs reuses the stored
// result, says so with its key, and runs no scenario. A PR that changes
// the step is reused only by a run with the same change (a second push
// that leaves the step as the first push left it): a push that changes
// the step again runs its scenarios. (The key holds the whole rendered
// script: a change outside the step moves the line numbers that messages
// give, so it is a key of its own.)
func TestResultsAreReusedWhenTheStepIsTheSame(t *testing.T) {
	t.Parallel()
	files := shapeFiles(styleGrep, bugNone, 3, "")
	same := inputFor(t, makeVerified(t, files, map[string]string{"README.md": "A change beside the step.\n"}))
	opts := Options{Cache: t.TempDir(), Catalogue: scenarios(t, "no-change", "untracked-file")}
	first, ri := New().WithOptions(opts).run(context.Background(), same)
	if ri == nil || first.Conclusion != checks.Success {
		logFindings(t, first)
		t.Fatalf("first run: conclusion %s: %s", first.Conclusion, first.Title)
	}
	reused := func(res checks.Result) bool {
		return slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "are reused and no scenario ran") })
	}
	if reused(first) {
		t.Fatal("the first run says it reuses a result")
	}
	second, ri := New().WithOptions(opts).run(context.Background(), same)
	if ri != nil {
		t.Errorf("the second run ran %d scenarios; the stored result should be reused", len(ri.catalogue))
	}
	for _, f := range second.Figures {
		if f.Label == wallLabel && !strings.Contains(f.Value, "no scenario ran") {
			t.Errorf("the reused result's wall time figure says %q: it is the stored run's", f.Value)
		}
	}
	if !reused(second) || second.Conclusion != first.Conclusion || second.Title != first.Title {
		t.Errorf("second run: conclusion %s, title %q, notes %q; want the first run's (%s, %q) and a note that it is reused",
			second.Conclusion, second.Title, second.Notes, first.Conclusion, first.Title)
	}
	// Another PR on the same base that leaves the step as it is (a
	// prompt-only change) reuses it too: the fixture and the steps are
	// the same, whatever else the head changes.
	other := inputFor(t, makeVerified(t, files, map[string]string{"README.md": "Another PR's change beside the step.\n"}))
	if res, ri := New().WithOptions(opts).run(context.Background(), other); ri != nil || !reused(res) {
		t.Errorf("another PR with the same step ran its scenarios (%v); notes %q", ri != nil, res.Notes)
	}
	harmless := func(comment, readme string) *checks.Input {
		head := shapeFiles(styleGrep, bugNone, 3, "")
		head["tpl/tests/test.sh"] = strings.Replace(head["tpl/tests/test.sh"], "cd /workspace/repo || exit 1\n", "cd /workspace/repo || exit 1 # "+comment+"\n", 1)
		if readme != "" {
			head["README.md"] = readme
		}
		return inputFor(t, makeVerified(t, files, head))
	}
	pushes := []struct {
		name       string
		in         *checks.Input
		wantReused bool
	}{
		{"a push that changes the step", harmless("a harmless change", ""), false},
		{"a second push that changes another file, the step as the first left it", harmless("a harmless change", "Another change beside the step.\n"), true},
		{"a third push that changes the step again", harmless("another harmless change", ""), false},
	}
	for _, p := range pushes {
		res, ri := New().WithOptions(opts).run(context.Background(), p.in)
		if reused(res) != p.wantReused || (ri == nil) != p.wantReused {
			t.Errorf("%s: reused %v (scenarios ran: %v), want reused %v; notes %q", p.name, reused(res), ri != nil, p.wantReused, res.Notes)
		}
		if res.Conclusion != checks.Success {
			t.Errorf("%s: conclusion %s: %s", p.name, res.Conclusion, res.Title)
		}
	}
}
