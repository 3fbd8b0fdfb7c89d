package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

// TestOutputWithinLimitsOnGitHub publishes a result far over every limit:
// the fake GitHub takes its output and all its annotations. The limits
// themselves are tested in package report.
func TestOutputWithinLimitsOnGitHub(t *testing.T) {
	big := strings.Repeat("ü", 40000) // 80,000 bytes
	var fs []checks.Finding
	for i := range 300 {
		msg := strings.Repeat("m", 300)
		if i < 2 {
			msg = strings.Repeat("m", 70000)
		}
		fs = append(fs, checks.Finding{Path: "t.sh", Line: i + 1, Level: checks.LevelWarning,
			Title: strings.Repeat("T", 300), Message: msg, Details: "diff\n" + strings.Repeat("ß", 500)})
	}
	res := checks.Result{
		Check: "render", Conclusion: checks.Failure, Title: strings.Repeat("é", 256), Summary: big,
		Findings: fs, Details: big,
		Tables:  []checks.Table{{Title: "Scenarios", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}},
		Changes: []checks.Change{{Path: "t.sh", Status: "modified", Sets: 1, AddedPerSet: []int{1}, RemovedPerSet: []int{1}, Diff: big}},
	}
	e := setup(t, false)
	rep := &report.Report{Results: []checks.Result{res}, Command: "template-verify run"}
	runs, err := e.pub.Start(context.Background(), []string{"render"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Complete(context.Background(), rep, mainGate); err != nil {
		t.Fatal(err)
	}
	run := e.srv.CheckRuns()[0]
	if len(run.Annotations) != 300 || run.Status != "completed" {
		t.Errorf("%d annotations, status %s", len(run.Annotations), run.Status)
	}
}
