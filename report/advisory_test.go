package report

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// advisoryRun is a passing run whose sync check warns that a copy of a
// default group is missing (an advisory finding) and warns of something
// else (not advisory).
func advisoryRun(conclusion checks.Conclusion) *Report {
	r := allPass()
	sync := checks.Result{Check: "sync", Conclusion: conclusion, Title: "1 sync group equal at the head", Findings: []checks.Finding{
		{Path: "fcrl/grading/gates.py", Line: 1, Level: checks.LevelWarning, Advisory: true, Title: "A copy is missing",
			Message: "Sync group restore-patterns is a default. So the default group does not apply to this repository."},
		{Path: root + "tests/test.sh", Line: 3, Level: checks.LevelWarning, Title: "Own warning", Message: "A warning of the repository's own config."},
	}}
	if conclusion == checks.Failure {
		sync.Findings = append(sync.Findings, checks.Finding{Path: root + "tests/test.sh", Line: 4, Level: checks.LevelFailure, Title: "Copies differ", Message: "They differ."})
	}
	r.Results = append(r.Results, sync)
	r.Overall = checks.Overall(r.Results)
	return r
}

// TestAdvisoryOnPass: in a check that passes, a warning from a default
// that does not apply to the repository is a note in every output (the
// comment, the check run, the text, the job step annotations and SARIF),
// never a warning; another warning stays one. In a check that fails, the
// advisory warning stays a warning.
func TestAdvisoryOnPass(t *testing.T) {
	t.Parallel()
	const adv = "Sync group restore-patterns is a default"
	r := advisoryRun(checks.Success)
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	notesAt := strings.Index(md, "## Notes")
	if i := strings.Index(md, adv); i < 0 || i < notesAt {
		t.Errorf("the advisory warning is not in the notes only (at %d, notes at %d)", i, notesAt)
	}
	if !strings.Contains(md, "- sync: A copy is missing. "+adv) {
		t.Errorf("no note for the advisory warning:\n%s", md[notesAt:])
	}
	if !strings.Contains(md, "Own warning") {
		t.Error("the repository's own warning is gone")
	}
	run := CheckRun(r.Results[len(r.Results)-1], "", 0)
	if len(run.Annotations) != 1 || run.Annotations[0].Title != "Own warning" {
		t.Errorf("check run annotations %+v, want only the own warning", run.Annotations)
	}
	if !strings.Contains(run.Summary, adv) {
		t.Errorf("the check run's notes lack the advisory warning:\n%s", run.Summary)
	}
	if text := r.Text(); strings.Contains(text, "gates.py: warning") || !strings.Contains(text, adv) {
		t.Errorf("the text lists the advisory warning as a warning, or not at all:\n%s", text)
	}
	if anns, _ := StepAnnotations(r, 10); strings.Contains(annTitles(anns), "A copy is missing") {
		t.Errorf("a job step annotation for the advisory warning: %s", annTitles(anns))
	}
	if b, err := r.SARIF(SARIFOptions{}); err != nil || strings.Contains(string(b), "gates.py") {
		t.Errorf("the SARIF log has the advisory warning (err %v)", err)
	}

	failing := advisoryRun(checks.Failure)
	if run := CheckRun(failing.Results[len(failing.Results)-1], "", 0); len(run.Annotations) != 3 {
		t.Errorf("a failing check has %d annotations, want 3 with the advisory warning", len(run.Annotations))
	}
	if text := failing.Text(); !strings.Contains(text, "fcrl/grading/gates.py:1: warning: A copy is missing") {
		t.Errorf("a failing check's text lacks the advisory warning:\n%s", text)
	}
}

func annTitles(anns []StepAnnotation) string {
	var b strings.Builder
	for _, a := range anns {
		b.WriteString(a.Title + "; ")
	}
	return b.String()
}
