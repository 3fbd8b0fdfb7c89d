package examples

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/archive"
	"github.com/formula-code/template-verify/verify"
)

// The heads of the archive check. Their files are in heads/.
const (
	// headArchive adds data/tasks-00000.tar: six tasks, four members each.
	headArchive = "archive-dataset"
	// headArchiveEdit applies one edit to every tests/test.sh of the
	// archive (PR base: headArchive): the passing head.
	headArchiveEdit = "archive-test-sh"
	// headArchiveBad is the same edit with one test.sh that bash -n
	// rejects and one member whose mode changes (PR base: headArchive).
	headArchiveBad = "bad-archive-test-sh"
)

// TestArchiveExample verifies the archive heads with the default checks:
// no template changes, so only the archive check runs (before, the
// verification stopped at "no template changed" and compared nothing).
// The edit of every test.sh passes with one distinct diff; the broken head fails
// on bash -n and on the mode change; the new archive passes bash -n.
func TestArchiveExample(t *testing.T) {
	t.Parallel()
	b := heads(t)
	tests := []struct {
		head  string
		want  checks.Conclusion
		title string
		text  []string
	}{
		{headArchive, checks.Success, "0 members changed, 0 distinct diffs after masking", []string{"`data/tasks-00000.tar` is new: 24 members.", "Every changed shell member passes `bash -n` (6)."}},
		{headArchiveEdit, checks.Success, "6 members changed, 1 distinct diff after masking", []string{
			"the same 24 members at base and head in the same order with the same mode/mtime/owner.",
			"6 members changed (all `test.sh`), 1 distinct diff after masking.", "No other member of the archive changed."}},
		{headArchiveBad, checks.Failure, "2 archive problems in 1 changed archive", []string{
			"bash -n rejects tasks/owner__repo-1/tests/test.sh at line 27: syntax error: unexpected end of file",
			"1 member changes its mode. Example: tasks/owner__repo-0/file0.txt, 0644 -> 0600."}},
	}
	for _, tc := range tests {
		t.Run(tc.head, func(t *testing.T) {
			t.Parallel()
			rep, err := verify.Run(context.Background(), verify.Options{RepoDir: b.Dir, Base: BaseBranchOf(tc.head), Head: tc.head})
			if err != nil {
				t.Fatal(err)
			}
			var res *checks.Result
			for i := range rep.Results {
				r := &rep.Results[i]
				switch {
				case r.Check == archive.Name:
					res = r
				case r.Conclusion != checks.Skipped:
					t.Errorf("check %s: %s %q; want skipped (no template changed)", r.Check, r.Conclusion, r.Title)
				}
			}
			if res == nil {
				t.Fatalf("no archive result; notes: %v", rep.Notes)
			}
			var all strings.Builder
			all.WriteString(res.Summary + "\n")
			for _, f := range res.Findings {
				all.WriteString(f.Message + "\n")
			}
			if res.Conclusion != tc.want || res.Title != tc.title {
				t.Errorf("%s %q; want %s %q\n%s", res.Conclusion, res.Title, tc.want, tc.title, all.String())
			}
			for _, s := range tc.text {
				if !strings.Contains(all.String(), s) {
					t.Errorf("lacks %q:\n%s", s, all.String())
				}
			}
			if rep.Overall != tc.want {
				t.Errorf("overall %s; want %s", rep.Overall, tc.want)
			}
		})
	}
}
