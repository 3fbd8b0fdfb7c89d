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
	res := checks.Result{Check: "render", Conclusion: checks.Failure, Title: strings.Repeat("é", 256), Summary: big, Details: big}
	for i := range 300 {
		res.Findings = append(res.Findings, checks.Finding{Path: "t.sh", Line: i + 1, Level: checks.LevelWarning,
			Title: strings.Repeat("T", 300), Message: strings.Repeat("m", 300+70000*max(0, 1-i)), Details: big})
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
