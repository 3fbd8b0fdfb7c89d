package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/housestyle"
)

func TestStepAnnotationOfAFinding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    checks.Finding
		want StepAnnotation
	}{
		{"failure with a range", checks.Finding{Path: "./a.sh", Line: 3, EndLine: 5, Level: checks.LevelFailure, Title: "T", Message: "m"},
			StepAnnotation{Level: "error", File: "a.sh", Line: 3, EndLine: 5, Title: "template-verify / render: T", Message: "m"}},
		{"warning, title only", checks.Finding{Path: "a.sh", Level: checks.LevelWarning, Title: "only\ntitle"},
			StepAnnotation{Level: "warning", File: "a.sh", Title: "template-verify / render: only title", Message: "only title"}},
		{"outside the repository", checks.Finding{Path: "../x.sh", Line: 1, Level: "odd", Message: "m"},
			StepAnnotation{Level: "notice", Title: "template-verify / render", Message: "m"}},
	} {
		if got := findingStepAnnotation("render", tc.f); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestLeftOutNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		l    LeftOut
		want string
	}{
		{LeftOut{Errors: 7, Warnings: 3, Notices: 3}, "Not shown here: 7 errors, 3 warnings and 3 notices."},
		{LeftOut{Errors: 1}, "Not shown here: 1 error."},
		{LeftOut{Warnings: 1, Notices: 2}, "Not shown here: 1 warning and 2 notices."},
	} {
		note := tc.l.Note(10)
		if !strings.Contains(note, tc.want) || !strings.HasPrefix(note, "GitHub shows at most 10 annotations") {
			t.Errorf("%+v: %q", tc.l, note)
		}
		for _, p := range housestyle.Lint(note) {
			if p.Rule != housestyle.RuleSection {
				t.Errorf("%s in %q", p, note)
			}
		}
	}
}

func TestJobSummary(t *testing.T) {
	t.Parallel()
	r := failingRender()
	full, err := r.MarkdownLimit(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		readOnly string
		fork     bool
		limit    int
		lead     string
		has      string
	}{
		{"written", "", false, 1 << 20, Marker, full},
		{"read-only", "The token can only read <b>.", false, 1 << 20, "> **Read-only run:** The token can only read &lt;b>. The report is here", full},
		{"fork", "This pull request comes from a fork (the head repository is gone), so the token can only read.", true, 1 << 20, "> **Read-only run:**", "> **Pull requests from forks:**"},
		{"too small for markdown", "", false, 200, "The report does not render as markdown: the comment is", "```text\n" + r.Text()},
	} {
		got := r.JobSummary(tc.limit, tc.readOnly, tc.fork)
		if !strings.HasPrefix(got, tc.lead) || !strings.Contains(got, tc.has) {
			t.Errorf("%s: %.400s", tc.name, got)
		}
	}
	if got := JobSummaryStopped("The verification did not finish", errors.New("clone:\n<exit 128>")); got != "## template-verify\n\nThe verification did not finish: clone: &lt;exit 128>.\n" {
		t.Errorf("stopped: %q", got)
	}
}
