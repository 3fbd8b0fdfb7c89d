package publish

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
)

var mainGate = checks.Gate{BaseRef: "main", Branches: config.Default().Gate.Branches}

func TestPublishRequests(t *testing.T) {
	t.Parallel()
	e := setup(t, true)
	rep := sampleReport()
	out := e.publishAll(t, rep, CommentAlways)
	reqs := e.srv.Requests()
	want := []string{
		"POST /repos/octo/hello/check-runs", "POST /repos/octo/hello/check-runs",
		"POST /repos/octo/hello/check-runs", "POST /repos/octo/hello/check-runs",
		// MarkVerifying looks for a comment to mark: there is none yet.
		"GET /repos/octo/hello/issues/7/comments",
	}
	for _, id := range []int{1, 2, 3, 4} {
		want = append(want, fmt.Sprintf("PATCH /repos/octo/hello/check-runs/%d", id))
	}
	want = append(want, "GET /repos/octo/hello/issues/7/comments", "POST /repos/octo/hello/issues/7/comments")
	if got := paths(reqs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	names := []string{"render", "restore", "pytest", "gate"}
	for i, n := range names {
		b := reqs[i].JSON
		if b["name"] != RunName(n) || b["status"] != "in_progress" || b["head_sha"] != headSHA || b["conclusion"] != nil {
			t.Errorf("create %d: %v", i, b)
		}
	}
	conclusions := []string{"failure", "success", "neutral", "failure"}
	for i, c := range conclusions {
		b := reqs[5+i].JSON
		if b["status"] != "completed" || b["conclusion"] != c || b["name"] != RunName(names[i]) {
			t.Errorf("complete %s: status %v conclusion %v, want completed %s", names[i], b["status"], b["conclusion"], c)
		}
	}
	for _, r := range e.srv.CheckRuns() {
		if r.Status != "completed" {
			t.Errorf("%s is %s", r.Name, r.Status)
		}
	}
	if n := len(e.srv.CheckRuns()[0].Annotations); n != 1 {
		t.Errorf("render has %d annotations, want 1", n)
	}
	if len(out.Runs) != 4 || out.Runs[3].Check != checks.GateCheck || out.Runs[3].Conclusion != "failure" {
		t.Errorf("runs %+v", out.Runs)
	}
	if !out.Comment.Created || out.Comment.URL == "" {
		t.Errorf("comment %+v", out.Comment)
	}
	// Seven writes after the first start one second apart.
	if s := e.clock.Sleeps(); len(s) != 8 {
		t.Errorf("pacing sleeps %v, want 8 of 1 s", s)
	}
	for _, d := range e.clock.Sleeps() {
		if d != githubapi.DefaultWriteInterval {
			t.Errorf("pacing sleep %v", d)
		}
	}
}

func TestAnnotationsFiftyARequest(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	fs := checktest.Findings(120)
	fs = append(fs, checks.Finding{Path: "templates/test.sh", Level: checks.LevelWarning, Message: "no line, so text only"})
	fs = append(fs, checks.Finding{Level: checks.LevelNotice, Message: "no path either"})
	rep := &report.Report{Results: []checks.Result{{Check: "render", Conclusion: checks.Failure, Title: "t", Findings: fs}}, Command: "tv run"}
	ctx := context.Background()
	runs, err := e.pub.Start(ctx, []string{"render"})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.ClearRequests()
	if _, err := runs.Complete(ctx, rep, mainGate); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, r := range e.srv.Requests() {
		if r.Path != "/repos/octo/hello/check-runs/1" {
			continue
		}
		out, _ := r.JSON["output"].(map[string]any)
		as, _ := out["annotations"].([]any)
		sizes = append(sizes, len(as))
		if out["title"] == nil || out["summary"] == nil {
			t.Errorf("an annotation request lacks the title or summary: %v", out)
		}
	}
	if fmt.Sprint(sizes) != "[50 50 20]" {
		t.Fatalf("annotation requests %v, want [50 50 20]", sizes)
	}
	run := e.srv.CheckRuns()[0]
	if len(run.Annotations) != 120 || run.Annotations[119].StartLine != 120 {
		t.Errorf("%d annotations stored", len(run.Annotations))
	}
	if !strings.Contains(run.Text, "no line, so text only") || !strings.Contains(run.Text, "no path either") {
		t.Errorf("findings without a line are not in the text:\n%s", run.Text)
	}
	if !strings.Contains(run.Text, "### Findings (122)") {
		t.Errorf("text heading: %.200s", run.Text)
	}
}

func TestAnnotationLimitPerRun(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.target.MaxAnnotations = 60
	rep := &report.Report{Results: []checks.Result{{Check: "render", Conclusion: checks.Failure, Findings: checktest.Findings(70)}}}
	e.publishAll(t, rep, CommentOff)
	run := e.srv.CheckRuns()[0]
	if len(run.Annotations) != 60 {
		t.Errorf("%d annotations, want 60", len(run.Annotations))
	}
	if !strings.Contains(run.Text, "at most 60 annotations, so 10 findings with a file and line have no annotation") {
		t.Errorf("text does not say what has no annotation:\n%.400s", run.Text)
	}
}

func TestUnstartedAndMissingChecks(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	ctx := context.Background()
	runs, err := e.pub.Start(ctx, []string{"render", "pytest"})
	if err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Results: []checks.Result{
		{Check: "render", Conclusion: checks.Success},
		{Check: "restore", Conclusion: checks.Success}, // not started
	}}
	infos, err := runs.Complete(ctx, rep, mainGate)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range e.srv.CheckRuns() {
		got[r.Name] = r.Status + "/" + r.Conclusion
	}
	want := map[string]string{
		RunName("render"): "completed/success", RunName("pytest"): "completed/neutral",
		RunName("gate"): "completed/failure", RunName("restore"): "completed/success",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("runs %v, want %v", got, want)
	}
	if len(infos) != 4 {
		t.Errorf("infos %+v", infos)
	}
}

func TestCompleteFallsBackToShortOutput(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	ctx := context.Background()
	runs, err := e.pub.Start(ctx, []string{"render"})
	if err != nil {
		t.Fatal(err)
	}
	f := fakegithub.Unprocessable("output is not valid")
	f.Method = "PATCH"
	e.srv.FailNext(1, f)
	_, err = runs.Complete(ctx, sampleReport(), mainGate)
	if err == nil || !strings.Contains(err.Error(), "output is not valid") {
		t.Fatalf("error %v, want the 422 message", err)
	}
	for _, r := range e.srv.CheckRuns() {
		if r.Status != "completed" {
			t.Errorf("%s left %s", r.Name, r.Status)
		}
		if r.Name == RunName("render") && (!strings.Contains(r.Summary, "GitHub did not take the full output") || r.Conclusion != "failure") {
			t.Errorf("render: %s %q", r.Conclusion, r.Summary)
		}
	}
}

func TestStartFailureCompletesWhatItMade(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	post := fakegithub.Unprocessable("head_sha is not a commit")
	post.Method, post.Skip = "POST", 1
	e.srv.FailNext(1, post)
	_, err := e.pub.Start(context.Background(), []string{"render", "restore"})
	if err == nil || !strings.Contains(err.Error(), "head_sha is not a commit") {
		t.Fatalf("error %v", err)
	}
	runs := e.srv.CheckRuns()
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	if r := runs[0]; r.Name != RunName("render") || r.Status != "completed" || r.Conclusion != "failure" || !strings.Contains(r.Summary, "could not create all its check runs") {
		t.Errorf("run %s: %s/%s %q", r.Name, r.Status, r.Conclusion, r.Summary)
	}
}

func TestAbort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		gate     checks.Gate
		wantGate string
	}{{mainGate, "failure"}, {checks.Gate{BaseRef: "feature", Branches: mainGate.Branches}, "skipped"}} {
		e := setup(t, false)
		ctx := context.Background()
		runs, err := e.pub.Start(ctx, []string{"render", "restore"})
		if err != nil {
			t.Fatal(err)
		}
		if err := runs.Abort(ctx, "failure", "The verification did not finish", "The config at head does not decode: line 3: unknown key.", tc.gate); err != nil {
			t.Fatal(err)
		}
		for _, r := range e.srv.CheckRuns() {
			want := "failure"
			if r.Name == RunName(checks.GateCheck) {
				want = tc.wantGate
			}
			if r.Status != "completed" || r.Conclusion != want || !strings.Contains(r.Summary, "unknown key") && r.Name != RunName(checks.GateCheck) {
				t.Errorf("%s: %s/%s %q", r.Name, r.Status, r.Conclusion, r.Summary)
			}
		}
	}
}
