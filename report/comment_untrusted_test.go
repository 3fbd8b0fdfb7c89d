package report

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

func TestWithBanner(t *testing.T) {
	t.Parallel()
	got := withBanner("<!-- m -->\n# Head\nrest\n", "> b\n")
	if got != "<!-- m -->\n# Head\n\n> b\nrest\n" {
		t.Errorf("%q", got)
	}
}

// TestUntrustedReport: the results of a fork's own report say who made
// them, the original report is not changed, and the comment warns under
// its headline.
func TestUntrustedReport(t *testing.T) {
	t.Parallel()
	rs := []checks.Result{{Check: "render", Conclusion: checks.Success, Title: "4 of 4 render"}, {Check: "restore", Conclusion: checks.Failure}}
	rep := &Report{Repo: "octo/hello", Results: rs, Overall: checks.Overall(rs)}
	marked := MarkUntrusted(rep)
	if marked.Results[0].Title != "Reported by the PR's job: 4 of 4 render" || !strings.HasPrefix(marked.Results[1].Title, "Reported by the PR's job: restore") ||
		!strings.HasPrefix(marked.Results[1].Summary, UntrustedNote) {
		t.Errorf("marked results %+v", marked.Results)
	}
	if rep.Results[0].Title != "4 of 4 render" {
		t.Error("MarkUntrusted changed the report")
	}
	body, err := rep.UntrustedMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(body, "\n")
	if !IsComment(body) || len(lines) < 4 || lines[3] != "> [!WARNING]" {
		t.Errorf("the warning is not under the headline:\n%s", strings.Join(lines[:min(6, len(lines))], "\n"))
	}
}
