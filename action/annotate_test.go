package action

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/housestyle"
	"github.com/formula-code/template-verify/report"
)

func TestChooseAnnotations(t *testing.T) {
	t.Parallel()
	var render, pytest []checks.Finding
	for i := range 8 {
		render = append(render, checks.Finding{Path: "t.sh", Line: i + 1, Level: checks.LevelFailure, Message: fmt.Sprintf("render failure %d", i)})
	}
	for i := range 12 {
		render = append(render, checks.Finding{Path: "t.sh", Line: 100 + i, Level: checks.LevelWarning, Message: fmt.Sprintf("render warning %d", i)})
	}
	render = append(render, checks.Finding{Level: checks.LevelFailure, Message: "render failure without a file"})
	for i := range 7 {
		pytest = append(pytest, checks.Finding{Path: "tests/test_x.py", Line: i + 1, Level: checks.LevelFailure, Message: fmt.Sprintf("pytest failure %d", i)})
	}
	for i := range 12 {
		pytest = append(pytest, checks.Finding{Path: "p.py", Line: i + 1, Level: checks.LevelNotice, Message: fmt.Sprintf("notice %d", i)})
	}
	rep := &report.Report{Results: []checks.Result{
		{Check: "render", Conclusion: checks.Failure, Findings: render},
		{Check: "restore", Conclusion: checks.TimedOut, Title: "The restore check timed out"},
		{Check: "pytest", Conclusion: checks.Failure, Findings: pytest},
		{Check: "extra", Conclusion: checks.NotRun, Title: "python3 is missing"},
	}}
	as, left := chooseAnnotations(rep)
	var errs, warns, notices []string
	for _, a := range as {
		switch a.Level {
		case "error":
			errs = append(errs, a.Message)
		case "warning":
			warns = append(warns, a.Message)
		default:
			notices = append(notices, a.Message)
		}
	}
	// Errors: with a file first in check order (8 render, then pytest),
	// then the ones without a file.
	wantErrs := "[render failure 0 render failure 1 render failure 2 render failure 3 render failure 4 render failure 5 render failure 6 render failure 7 pytest failure 0 pytest failure 1]"
	if fmt.Sprint(errs) != wantErrs {
		t.Errorf("errors %v\nwant %s", errs, wantErrs)
	}
	if len(warns) != 10 || warns[0] != "render warning 0" {
		t.Errorf("warnings %v", warns)
	}
	if len(notices) != 9 {
		t.Errorf("%d notices, want 9 and one slot for the note", len(notices))
	}
	// Left out: 5 more pytest failures, the failure without a file, the
	// timed-out restore; 2 render warnings and the not-run check; 3 notices.
	if left != (leftOut{Errors: 7, Warnings: 3, Notices: 3}) {
		t.Errorf("left out %+v", left)
	}

	var out bytes.Buffer
	gha := githubactions.New(githubactions.WithWriter(&out), githubactions.WithGetenv(func(string) string { return "" }))
	emit(gha, as, left)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 30 {
		t.Fatalf("%d workflow commands, want 30", len(lines))
	}
	if lines[0] != "::error file=t.sh,line=1,title=template-verify / render::render failure 0" {
		t.Errorf("first command %q", lines[0])
	}
	if last := lines[29]; !strings.HasPrefix(last, "::notice title=template-verify::GitHub shows at most 10 annotations") ||
		!strings.Contains(last, "Not shown here: 7 errors, 3 warnings and 3 notices.") {
		t.Errorf("last command %q", last)
	}
}

func TestCheckLevelAnnotation(t *testing.T) {
	t.Parallel()
	rep := &report.Report{Results: []checks.Result{
		{Check: "restore", Conclusion: checks.TimedOut, Title: "Time limit", Summary: "The step ran\nfor 5 min."},
		{Check: "render", Conclusion: checks.Success},
		{Check: "pytest", Conclusion: checks.Skipped},
	}}
	as, left := chooseAnnotations(rep)
	if len(as) != 1 || left.Total() != 0 {
		t.Fatalf("annotations %+v left %+v", as, left)
	}
	if a := as[0]; a.Level != "error" || a.Title != "template-verify / restore: timed out" || a.Message != "Time limit. The step ran for 5 min." || a.File != "" {
		t.Errorf("annotation %+v", a)
	}
}

func TestWorkflowCommandEscapes(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	gha := githubactions.New(githubactions.WithWriter(&out), githubactions.WithGetenv(func(string) string { return "" }))
	emit(gha, []wfAnnotation{{Level: "warning", File: "a,b:c.sh", Line: 3, EndLine: 4, Title: "t", Message: "100% sure\nline two ::x::"}}, leftOut{})
	want := "::warning endLine=4,file=a%2Cb%3Ac.sh,line=3,title=t::100%25 sure%0Aline two ::x::\n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
}

func TestNotesFollowHouseStyle(t *testing.T) {
	texts := []string{
		leftOut{Errors: 7, Warnings: 3, Notices: 3}.Note(MaxStepAnnotations),
		leftOut{Errors: 1}.Note(MaxStepAnnotations),
	}
	h := stubHarness(t, func(pr map[string]any) { pr["head"].(map[string]any)["repo"] = nil }, restorePasses)
	h.run()
	first, _, _ := strings.Cut(h.summary(), "\n")
	texts = append(texts, first)
	for _, s := range texts {
		for _, p := range housestyle.Lint(s) {
			if p.Rule != housestyle.RuleSection {
				t.Errorf("%s\nin: %s", p, s)
			}
		}
	}
	if !strings.Contains(texts[2], "the head repository is gone") {
		t.Errorf("summary note %q", texts[2])
	}
}
