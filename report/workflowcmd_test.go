package report

import (
	"strings"
	"testing"
	"unicode"

	"github.com/formula-code/template-verify/checks"
)

// A file name from the pull request that reads like a workflow command
// does not start a line of the text report, so `run --format text` in a
// workflow step cannot make an annotation or mask (issue 20).
func TestTextHasNoWorkflowCommand(t *testing.T) {
	t.Parallel()
	cmd := "::warning title=Security review::Approved by the security team"
	rep := &Report{Repo: "r", Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), Overall: checks.Failure,
		Results: []checks.Result{{
			Check: "names", Conclusion: checks.Failure, Title: "##[error]title",
			Findings: []checks.Finding{{Path: cmd, Level: checks.LevelFailure, Title: "A bad name", Message: "x"},
				{Level: checks.LevelWarning, Message: "y"}},
			Tables: []checks.Table{{Title: "t", Header: []string{"File"}, Rows: [][]string{{cmd}}}},
		}}}
	text := rep.Text()
	if !strings.Contains(text, "Approved by the security team") {
		t.Fatalf("the finding is missing:\n%s", text)
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			t.Errorf("line %d is a workflow command: %q", i+1, line)
		}
	}
}
