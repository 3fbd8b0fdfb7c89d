package action

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakeclock"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

var (
	renderFails = checks.Result{Check: "render", Conclusion: checks.Failure, Title: "bash -n fails",
		Findings: []checks.Finding{{Path: "templates/test.sh", Line: 12, Level: checks.LevelFailure, Title: "Syntax error", Message: "unexpected fi"}}}
	restorePasses = checks.Result{Check: "restore", Conclusion: checks.Success, Title: "24 of 24 scenarios match"}
)

func stubHarness(t *testing.T, edit func(pr map[string]any), results ...checks.Result) *harness {
	dir, base, head := smallRepo(t)
	h := newHarness(t, nil, dir, event(t, base, head, edit))
	h.checks = stubChecks("render", "restore")
	h.verify = stubReport(results...)
	return h
}

func TestPublishesCheckRunsAndOneComment(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, renderFails, restorePasses)
	if code := h.run(); code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFail, h.stdout.String())
	}
	ev, _ := readEvent(h.env["GITHUB_EVENT_PATH"])
	if h.lastOpt.Base != ev.BaseSHA || h.lastOpt.Head != ev.HeadSHA || h.lastOpt.RepoDir != h.env["GITHUB_WORKSPACE"] || h.lastOpt.RepoName != repoFull {
		t.Errorf("verify options %+v", h.lastOpt)
	}
	want := map[string]string{"render": "failure", "restore": "success", "gate": "failure"}
	runs := h.srv.CheckRuns()
	if len(runs) != 3 {
		t.Fatalf("%d check runs", len(runs))
	}
	for _, r := range runs {
		check := strings.TrimPrefix(r.Name, "template-verify / ")
		if r.Status != "completed" || r.Conclusion != want[check] || r.HeadSHA != ev.HeadSHA {
			t.Errorf("%s: %s/%s on %s", r.Name, r.Status, r.Conclusion, r.HeadSHA)
		}
		if r.DetailsURL != "https://github.invalid/octo/hello/actions/runs/99" {
			t.Errorf("details URL %q", r.DetailsURL)
		}
	}
	if len(runs[0].Annotations) != 1 || runs[0].Annotations[0].StartLine != 12 {
		t.Errorf("render annotations %+v", runs[0].Annotations)
	}
	cs := h.srv.Comments(repoFull, prNumber)
	if len(cs) != 1 || cs[0].Author != CommentAuthor || !strings.HasPrefix(cs[0].Body, report.Marker) {
		t.Fatalf("comments %+v", cs)
	}
	out := h.outputs()
	if out["conclusion"] != "failure" || !strings.HasSuffix(out["comment-url"], "#issuecomment-"+itoa(cs[0].ID)) || out["report-json"] != filepath.Join(h.env["RUNNER_TEMP"], ReportDir, ReportName) {
		t.Errorf("outputs %v", out)
	}
	data, err := os.ReadFile(out["report-json"])
	var js map[string]any
	if err != nil || json.Unmarshal(data, &js) != nil || js["overall"] != "failure" {
		t.Errorf("report JSON %v: %.200s", err, data)
	}
	if s := h.summary(); !strings.Contains(s, report.Marker) || strings.Contains(s, "Read-only run") {
		t.Errorf("summary %.300s", s)
	}
	if strings.Contains(h.stdout.String(), "::error file=") {
		t.Error("workflow annotations in a run that has check runs")
	}
	if !strings.Contains(h.stdout.String(), "::error::The job fails because of fail-on: render failure.") {
		t.Errorf("log lacks the fail-on reason:\n%s", h.stdout.String())
	}

	// A second run edits the same comment twice: "verifying <sha>…" over
	// the previous result while it runs, then its own result.
	h.verify = stubReport(restorePasses, checks.Result{Check: "render", Conclusion: checks.Success})
	if code := h.run(); code != ExitPass {
		t.Fatalf("second run: exit %d\n%s", code, h.stdout.String())
	}
	cs2 := h.srv.Comments(repoFull, prNumber)
	if len(cs2) != 1 || cs2[0].ID != cs[0].ID || cs2[0].Edits != 2 || cs2[0].Body == cs[0].Body || report.IsVerifying(cs2[0].Body) {
		t.Errorf("after the second run: %+v", cs2)
	}
	if n := len(h.srv.CheckRuns()); n != 6 {
		t.Errorf("%d check runs after two runs, want 6", n)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestForkMakesNoWriteCall(t *testing.T) {
	t.Parallel()
	fork := func(pr map[string]any) { pr["head"].(map[string]any)["repo"].(map[string]any)["fork"] = true }
	h := stubHarness(t, fork, renderFails, restorePasses)
	if code := h.run(); code != ExitFail {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if rs := h.srv.Requests(); len(rs) != 0 {
		t.Errorf("a fork run sent %d requests: %v", len(rs), rs[0].Method+" "+rs[0].Path)
	}
	s := h.summary()
	if !strings.Contains(s, "**Read-only run:** This pull request comes from a fork") || !strings.Contains(s, report.Marker) {
		t.Errorf("summary %.400s", s)
	}
	if !strings.Contains(h.stdout.String(), "::error file=templates/test.sh,line=12,title=template-verify / render%3A Syntax error::unexpected fi") {
		t.Errorf("no annotation in the log:\n%s", h.stdout.String())
	}
	if out := h.outputs(); out["conclusion"] != "failure" || out["comment-url"] != "" {
		t.Errorf("outputs %v", out)
	}
}

func TestReadOnlyTokenFallsBack(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, restorePasses)
	h.srv.AddToken("ghs_test", fakegithub.Token{Login: CommentAuthor, ReadOnly: true})
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if w := h.srv.Writes(); len(w) != 1 || w[0].Status != 403 {
		t.Errorf("writes %+v, want one refused POST", w)
	}
	if len(h.srv.CheckRuns()) != 0 {
		t.Error("check runs made")
	}
	if !strings.Contains(h.stdout.String(), "::warning::GitHub refused to create a check run (403)") ||
		!strings.Contains(h.summary(), "Read-only run") {
		t.Errorf("no read-only note:\n%s", h.stdout.String())
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	t.Parallel()
	dir, base, head := smallRepo(t)
	good := event(t, base, head, nil)
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no event path", map[string]string{"GITHUB_EVENT_PATH": ""}, "GITHUB_EVENT_PATH is not set"},
		{"missing event file", map[string]string{"GITHUB_EVENT_PATH": filepath.Join(dir, "nope.json")}, "nope.json: no such file"},
		{"malformed event", map[string]string{"GITHUB_EVENT_PATH": write("{\"pull_request\": ")}, "event.json: line 1, column 18: unexpected end of JSON input"},
		{"push payload", map[string]string{"GITHUB_EVENT_PATH": write(`{"ref":"refs/heads/main"}`)}, "field pull_request is missing"},
		{"push event", map[string]string{"GITHUB_EVENT_NAME": "push"}, `GITHUB_EVENT_NAME is "push"`},
		{"pull_request_target", map[string]string{"GITHUB_EVENT_NAME": "pull_request_target"}, "run this Action on pull_request"},
		{"bad repository", map[string]string{"GITHUB_REPOSITORY": "hello"}, `GITHUB_REPOSITORY is "hello"`},
		{"no workspace", map[string]string{"GITHUB_WORKSPACE": ""}, "GITHUB_WORKSPACE is not set"},
		{"workspace not a repo", map[string]string{"GITHUB_WORKSPACE": t.TempDir()}, "is not a git repository: add actions/checkout"},
		{"bad fail-on", map[string]string{"INPUT_FAIL-ON": "sometimes"}, "input fail-on"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, dir, good)
			h.verify = stubReport(restorePasses)
			for k, v := range tc.env {
				h.env[k] = v
			}
			if code := h.run(); code != ExitUsage {
				t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, h.stdout.String())
			}
			if !strings.Contains(h.stdout.String(), "::error::") || !strings.Contains(h.stdout.String(), tc.want) {
				t.Errorf("log lacks %q:\n%s", tc.want, h.stdout.String())
			}
			if h.calls != 0 || len(h.srv.Requests()) != 0 {
				t.Errorf("verify ran %d times, %d requests", h.calls, len(h.srv.Requests()))
			}
		})
	}
}

func TestVerifyErrorCompletesRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		err        error
		code       int
		conclusion string
	}{
		{"bad configuration", &verify.UsageError{Err: errors.New(".github/template-verify.yml:3: unknown key")}, ExitUsage, "failure"},
		{"internal error", errors.New("disk full"), ExitFail, "failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stubHarness(t, nil)
			h.verify = func(context.Context, verify.Options) (*report.Report, error) { return nil, tc.err }
			if code := h.run(); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, h.stdout.String())
			}
			for _, r := range h.srv.CheckRuns() {
				want := tc.conclusion
				if r.Name == publish.RunName(checks.GateCheck) {
					want = "failure"
				}
				if r.Status != "completed" || r.Conclusion != want || !strings.Contains(r.Summary, tc.err.Error()) && r.Name != publish.RunName(checks.GateCheck) {
					t.Errorf("%s: %s/%s %q", r.Name, r.Status, r.Conclusion, r.Summary)
				}
			}
			if len(h.srv.CheckRuns()) != 3 || len(h.srv.Comments(repoFull, prNumber)) != 0 {
				t.Errorf("%d runs, %d comments", len(h.srv.CheckRuns()), len(h.srv.Comments(repoFull, prNumber)))
			}
			if !strings.Contains(h.summary(), "The verification did not finish") || h.outputs()["conclusion"] != "error" {
				t.Errorf("summary %q outputs %v", h.summary(), h.outputs())
			}
		})
	}
}

func TestFailOnAndCommentInputs(t *testing.T) {
	t.Parallel()
	notRun := checks.Result{Check: "restore", Conclusion: checks.NotRun, Title: "no section"}
	tests := []struct {
		name     string
		inputs   map[string]string
		results  []checks.Result
		code     int
		comments int
	}{
		{"fail-on none passes a failure", map[string]string{"INPUT_FAIL-ON": "none"}, []checks.Result{renderFails}, ExitPass, 1},
		{"default fails not_run", nil, []checks.Result{restorePasses, notRun}, ExitFail, 1},
		{"fail-on failure passes not_run", map[string]string{"INPUT_FAIL-ON": "failure"}, []checks.Result{restorePasses, notRun}, ExitPass, 1},
		{"comment-mode off", map[string]string{"INPUT_COMMENT-MODE": "off"}, []checks.Result{restorePasses}, ExitPass, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := stubHarness(t, nil, tc.results...)
			for k, v := range tc.inputs {
				h.env[k] = v
			}
			if code := h.run(); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, h.stdout.String())
			}
			if n := len(h.srv.Comments(repoFull, prNumber)); n != tc.comments {
				t.Errorf("%d comments, want %d", n, tc.comments)
			}
		})
	}
}

func TestGateBranchesFromBaseConfig(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{".github/template-verify.yml": "version: 1\ngate:\n  branches: [develop]\n"})
	base := r.Commit("base")
	// The head cannot widen or narrow the gate: its config is not read.
	r.Write(map[string]string{".github/template-verify.yml": "version: 1\ngate:\n  branches: [main]\n"})
	head := r.Commit("head")
	for _, tc := range []struct{ baseRef, want string }{{"main", "skipped"}, {"develop", "failure"}} {
		h := newHarness(t, nil, r.Dir(), event(t, base, head, func(pr map[string]any) { pr["base"].(map[string]any)["ref"] = tc.baseRef }))
		h.checks = stubChecks("render")
		h.verify = stubReport(renderFails)
		h.run()
		runs := h.srv.CheckRuns()
		if g := runs[len(runs)-1]; g.Name != publish.RunName(checks.GateCheck) || g.Conclusion != tc.want {
			t.Errorf("base %s: gate %s %s, want %s (%s)", tc.baseRef, g.Name, g.Conclusion, tc.want, g.Summary)
		}
	}
}

func TestPublishErrorFailsJob(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, restorePasses)
	f := fakegithub.Unprocessable("Body is too long")
	f.Method = "POST"
	f.Skip = 3 // the three check runs
	h.srv.FailNext(1, f)
	if code := h.run(); code != ExitFail {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.stdout.String(), "::error::Publishing to GitHub failed: create the comment on pull request #2") {
		t.Errorf("log:\n%s", h.stdout.String())
	}
}

func TestRunnerFilesMissingOrBroken(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, restorePasses)
	h.env["GITHUB_STEP_SUMMARY"] = ""
	h.env["GITHUB_OUTPUT"] = filepath.Join(t.TempDir(), "no", "such", "dir", "output")
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.stdout.String(), "::warning::The output conclusion was not set") {
		t.Errorf("log:\n%s", h.stdout.String())
	}
}

// A job cancelled during the verification still completes its check runs.
func TestCancelledJobCompletesRuns(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := checks.Result{Check: "render", Conclusion: checks.Cancelled, Title: "The job was cancelled"}
	code := Run(ctx, Options{
		Getenv: func(k string) string { return h.env[k] },
		Stdout: &h.stdout,
		Verify: func(ctx context.Context, o verify.Options) (*report.Report, error) {
			cancel()
			return stubReport(cancelled, restorePasses)(ctx, o)
		},
		Checks: h.checks,
		Clock:  fakeclock.New(time.Time{}),
	})
	if code != ExitFail {
		t.Errorf("exit %d\n%s", code, h.stdout.String())
	}
	runs := h.srv.CheckRuns()
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		if r.Status != "completed" {
			t.Errorf("%s left %s", r.Name, r.Status)
		}
	}
	if runs[0].Conclusion != "cancelled" || runs[2].Conclusion != "failure" {
		t.Errorf("render %s, gate %s", runs[0].Conclusion, runs[2].Conclusion)
	}
}
