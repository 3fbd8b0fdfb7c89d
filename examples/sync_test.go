package examples

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/names"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/checks/synccheck"
	"github.com/formula-code/template-verify/verify"
)

// The heads of the sync and names checks. Their files are in heads/; the
// tests build them on a copy of the example, each on the commit its
// ".base" file names (main without one).
const (
	// headSyncCopy adds the grader's copy of the restore patterns,
	// fcrl/grading/gates.py, equal to the list in test.sh.
	headSyncCopy = "sync-grader-copy"
	// headSyncBad adds a pattern to the grader's copy only (PR base:
	// headSyncCopy).
	headSyncBad = "bad-sync-grader"
	// headSyncReordered writes the grader's copy as a frozenset in another
	// order and quoting: the same items (the near miss; PR base:
	// headSyncCopy).
	headSyncReordered = "sync-grader-reordered"
	// headNamesBad adds {{ protected_paths }} to the prompt, which no
	// variable set defines: it renders as nothing.
	headNamesBad = "prompt-undefined-name"
	// headNamesDefault adds the same line with a default (the near miss).
	headNamesDefault = "prompt-name-default"
)

// runChecks verifies one head against its PR base with the given checks.
func runChecks(t *testing.T, b *Built, head string, list ...checks.Check) map[string]checks.Result {
	t.Helper()
	rep, err := verify.Run(context.Background(), verify.Options{
		RepoDir: b.Dir, Base: BaseBranchOf(head), Head: head,
		Checks: func() []checks.Check { return list },
	})
	if err != nil {
		t.Fatalf("verify %s: %v", head, err)
	}
	out := map[string]checks.Result{}
	for _, r := range rep.Results {
		out[r.Check] = r
	}
	return out
}

func findingLines(r checks.Result) string {
	var sb strings.Builder
	for _, f := range r.Findings {
		sb.WriteString(string(f.Level) + " " + f.Path + ":" + strconv.Itoa(f.Line) + " " + f.Message + "\n" + f.Details + "\n")
	}
	return sb.String()
}

// TestSyncAndNamesExample runs the sync and names checks (and render,
// which passes the undefined name) on the heads: the grader copy added
// equal passes, a pattern added to one copy fails with the other copy's
// file and line, the same items in another order pass; the default sync
// group on a head without the grader file is skipped and says the file is
// missing; the prompt's undefined name fails in names while render passes,
// and the same name with a default passes.
func TestSyncAndNamesExample(t *testing.T) {
	t.Parallel()
	needPython(t, "jinja2")
	b := heads(t)
	tests := []struct {
		head  string
		check string
		want  checks.Conclusion
		text  []string // in the findings
		clean bool     // no finding at all
	}{
		{headSyncCopy, synccheck.Name, checks.Success, nil, true},
		{headSyncBad, synccheck.Name, checks.Failure, []string{
			"failure " + testSh + ":54 Sync group restore-patterns: " + testSh + " (rendered) lacks 1 item that fcrl/grading/gates.py has. They were equal at the base.",
			`(^|/)pytest\.ini$    (fcrl/grading/gates.py:15)`}, false},
		{headSyncReordered, synccheck.Name, checks.Success, nil, true},
		// good changes the bash array of test.sh and its copy, the YAML list
		// restore.patterns of the config file, the same way: discovery
		// compares them.
		{HeadGood, synccheck.Name, checks.Success, []string{"warning fcrl/grading/gates.py:0 Sync group restore-patterns is a default. At the base and at the head, fcrl/grading/gates.py is not in the repository"}, false},
		{headNamesBad, names.Name, checks.Failure, []string{
			"failure src/datasmith/github/templates/final.md.j2:22 src/datasmith/github/templates/final.md.j2 reads protected_paths, which no variable set of group prompts defines."}, false},
		{headNamesBad, render.Name, checks.Success, nil, false},
		{headNamesDefault, names.Name, checks.Success, nil, true},
		{HeadGood, names.Name, checks.Success, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.head+"/"+tc.check, func(t *testing.T) {
			t.Parallel()
			var c checks.Check
			switch tc.check {
			case synccheck.Name:
				c = synccheck.New()
			case names.Name:
				c = names.New()
			default:
				c = render.New()
			}
			res := runChecks(t, b, tc.head, c)[tc.check]
			text := findingLines(res)
			if res.Conclusion != tc.want {
				t.Errorf("conclusion %s (%s), want %s\n%s", res.Conclusion, res.Title, tc.want, text)
			}
			if tc.clean && len(res.Findings) > 0 {
				t.Errorf("findings, want none:\n%s", text)
			}
			for _, w := range tc.text {
				if !strings.Contains(text, w) {
					t.Errorf("findings lack %q:\n%s", w, text)
				}
			}
			t.Logf("%s: %s", res.Conclusion, res.Title)
		})
	}
}
