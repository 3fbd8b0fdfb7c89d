package action

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

const (
	forkPR     = 7
	artifactAt = "template-verify-artifact/report.json"
)

// publishHarness is the trusted workflow_run job: a checkout of the base
// repository, the artifact of a fork's pull_request run at artifactAt,
// and the fork's pull request on the fake GitHub.
func publishHarness(t *testing.T, artifact func(head string) []byte) (*harness, string) {
	t.Helper()
	dir, base, head := smallRepo(t)
	srv := fakegithub.New(t)
	srv.AddPull(repoFull, fakegithub.Pull{Number: forkPR, HeadSHA: head, HeadRef: "changes", BaseSHA: base, BaseRef: "main", HeadRepo: "fork/hello", Fork: true})
	data, err := os.ReadFile("testdata/github-webhooks/workflow_run/completed.payload.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	ev["repository"].(map[string]any)["full_name"] = repoFull
	ev["workflow_run"].(map[string]any)["head_sha"] = head
	out, _ := json.Marshal(ev)
	evPath := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(evPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if body := artifact(head); body != nil {
		p := filepath.Join(dir, artifactAt)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, srv, dir, evPath)
	h.env["GITHUB_EVENT_NAME"] = "workflow_run"
	h.env["INPUT_REPORT"] = artifactAt
	h.verify = func(context.Context, verify.Options) (*report.Report, error) {
		t.Fatal("the publisher verified: it must only read the report")
		return nil, nil
	}
	return h, head
}

// reportJSON is the JSON report a pull_request run uploads.
func reportJSON(t *testing.T, head string, results ...checks.Result) []byte {
	rep, err := stubReport(results...)(context.Background(), verify.Options{RepoName: repoFull, Base: strings.Repeat("b", 40), Head: head})
	if err != nil {
		t.Fatal(err)
	}
	data, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The publisher of a fork's report puts the check runs and the gate on the
// run's head commit and the comment on the pull request whose head it is,
// found through the API (the event lists no pull request for a fork).
func TestWorkflowRunPublishesForkReport(t *testing.T) {
	t.Parallel()
	h, head := publishHarness(t, func(head string) []byte { return reportJSON(t, head, renderFails, restorePasses) })
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	want := map[string]string{"render": "failure", "restore": "success", "gate": "failure"}
	runs := h.srv.CheckRuns()
	if len(runs) != len(want) {
		t.Fatalf("%d check runs, want %d", len(runs), len(want))
	}
	for _, r := range runs {
		check := strings.TrimPrefix(r.Name, "template-verify / ")
		if r.HeadSHA != head || r.Status != "completed" || r.Conclusion != want[check] {
			t.Errorf("%s: %s/%s on %s", r.Name, r.Status, r.Conclusion, r.HeadSHA)
		}
		if !strings.HasSuffix(r.DetailsURL, "/actions/runs/289782451") {
			t.Errorf("%s: details %q, want the pull_request run", r.Name, r.DetailsURL)
		}
	}
	cs := h.srv.Comments(repoFull, forkPR)
	if len(cs) != 1 || cs[0].Author != CommentAuthor || !report.IsComment(cs[0].Body) {
		t.Fatalf("comments %+v", cs)
	}
	if !strings.Contains(cs[0].Body, "/actions/runs/289782451") {
		t.Errorf("the comment does not link to the run that verified:\n%.2000s", cs[0].Body)
	}
	if !strings.Contains(h.summary(), "pull request #7") {
		t.Errorf("summary %q", h.summary())
	}
}

// What the fork controls (the artifact) decides neither where the
// publisher writes nor whether the gate passes without results.
func TestWorkflowRunRefusesBadArtifacts(t *testing.T) {
	t.Parallel()
	other := strings.Repeat("c", 40)
	many := make([]checks.Result, MaxReportChecks+1)
	for i := range many {
		many[i] = checks.Result{Check: "c" + strings.Repeat("x", i%30) + string(rune('a'+i%26)), Conclusion: checks.Success}
	}
	cases := []struct {
		name     string
		artifact func(t *testing.T, dir, head string) []byte
		err      string
	}{
		{"no artifact", func(*testing.T, string, string) []byte { return nil }, "uploaded none"},
		{"report of another commit", func(t *testing.T, _, _ string) []byte { return reportJSON(t, other, restorePasses) }, "is of commit " + other},
		{"not JSON", func(*testing.T, string, string) []byte { return []byte("<html>") }, "not valid JSON"},
		{"too many checks", func(t *testing.T, _, head string) []byte { return reportJSON(t, head, many...) }, "more than 32"},
		{"a result named gate", func(t *testing.T, _, head string) []byte {
			return reportJSON(t, head, checks.Result{Check: "gate", Conclusion: checks.Success})
		}, `check name "gate"`},
		{"symlink to a file outside", func(t *testing.T, dir, _ string) []byte {
			secret := filepath.Join(t.TempDir(), "secret.json")
			if err := os.WriteFile(secret, reportJSON(t, strings.Repeat("d", 40)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(artifactAt)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, filepath.Join(dir, artifactAt)); err != nil {
				t.Fatal(err)
			}
			return nil
		}, "read the report"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var dir string
			h, head := publishHarness(t, func(string) []byte { return nil })
			dir = h.env["GITHUB_WORKSPACE"]
			if body := tc.artifact(t, dir, head); body != nil {
				p := filepath.Join(dir, artifactAt)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if code := h.run(); code != ExitFail {
				t.Fatalf("exit %d, want %d\n%s", code, ExitFail, h.stdout.String())
			}
			if !strings.Contains(h.stdout.String(), tc.err) {
				t.Errorf("log does not say %q:\n%s", tc.err, h.stdout.String())
			}
			runs := h.srv.CheckRuns()
			if len(runs) != 1 || runs[0].Name != publish.RunName(checks.GateCheck) || runs[0].Conclusion != "failure" || runs[0].HeadSHA != head {
				t.Errorf("runs %+v, want one failed gate on %s", runs, head)
			}
			if n := len(h.srv.Comments(repoFull, forkPR)); n != 0 {
				t.Errorf("%d comments", n)
			}
		})
	}
}

// A forged overall conclusion does not pass the gate: the publisher
// computes it again from the results.
func TestWorkflowRunRecomputesOverall(t *testing.T) {
	t.Parallel()
	h, _ := publishHarness(t, func(head string) []byte {
		data := reportJSON(t, head, renderFails)
		return []byte(strings.Replace(string(data), `"overall": "failure"`, `"overall": "success"`, 1))
	})
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	for _, r := range h.srv.CheckRuns() {
		if r.Name == publish.RunName(checks.GateCheck) && r.Conclusion != "failure" {
			t.Errorf("gate %s, want failure", r.Conclusion)
		}
	}
	if got := h.outputs()["conclusion"]; got != "failure" {
		t.Errorf("conclusion output %q", got)
	}
}

// The pull request to comment on must have the run's head commit: a
// pull request whose head moved on (a newer push, whose own run
// publishes) gets nothing, and the job passes.
func TestWorkflowRunNeedsThePullRequestOfTheCommit(t *testing.T) {
	t.Parallel()
	h, _ := publishHarness(t, func(head string) []byte { return reportJSON(t, head, restorePasses) })
	h.srv.AddPull(repoFull, fakegithub.Pull{Number: forkPR, HeadSHA: strings.Repeat("e", 40), BaseRef: "main", HeadRepo: "fork/hello", Fork: true})
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.stdout.String(), "no open pull request") || len(h.srv.CheckRuns()) != 0 || len(h.srv.Comments(repoFull, forkPR)) != 0 {
		t.Errorf("runs %d, comments %d\n%s", len(h.srv.CheckRuns()), len(h.srv.Comments(repoFull, forkPR)), h.stdout.String())
	}
}

// The publisher reads back what report.JSON writes: every field of the
// results that the check runs and the comment show. A change of the JSON
// format that the publisher cannot read fails here.
func TestParseReportRoundTrip(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	rich := checks.Result{Check: "pytest", Conclusion: checks.Failure, Title: "1 of 24 scenarios differ", Summary: "One differs.",
		Findings: []checks.Finding{{Path: "templates/test.sh", Line: 3, Level: checks.LevelFailure, Title: "Kept a file", Message: "x"}},
		Figures:  []checks.Figure{{Label: "scenarios", Value: "24", Command: "template-verify run --only restore"}},
		Tables:   []checks.Table{{Title: "Scenarios", Header: []string{"name", "result"}, Rows: [][]string{{"keeps-added", "differs"}}}},
		Notes:    []string{"a note"}, Details: "details", Duration: 1500}
	want, err := stubReport(rich, restorePasses)(context.Background(), verify.Options{RepoName: repoFull, Base: strings.Repeat("b", 40), Head: head})
	if err != nil {
		t.Fatal(err)
	}
	data, err := want.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseReport(data)
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got.Results)
	wj, _ := json.Marshal(want.Results)
	if string(gj) != string(wj) {
		t.Errorf("results read back:\n%s\nwant\n%s", gj, wj)
	}
	if got.Head != head || got.Overall != checks.Failure || len(got.Templates) != 1 || got.Templates[0].OldPath != "templates/test.sh" {
		t.Errorf("report read back: %+v", got)
	}
}

// The report input belongs to workflow_run, and workflow_run needs it: a
// mix-up is a usage error that names the input, not a silent run.
func TestReportInputAndEventMustMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, event, report, want string
	}{
		{"report on pull_request", "pull_request", artifactAt, "the Action publishes a report only on workflow_run"},
		{"workflow_run without report", "workflow_run", "", "input report is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := publishHarness(t, func(head string) []byte { return reportJSON(t, head, restorePasses) })
			h.env["GITHUB_EVENT_NAME"], h.env["INPUT_REPORT"] = tc.event, tc.report
			if tc.event == "pull_request" {
				dir, base, head := smallRepo(t)
				h.env["GITHUB_WORKSPACE"], h.env["GITHUB_EVENT_PATH"] = dir, event(t, base, head, nil)
			}
			if code := h.run(); code != ExitUsage {
				t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, h.stdout.String())
			}
			if !strings.Contains(h.stdout.String(), tc.want) || len(h.srv.CheckRuns()) != 0 {
				t.Errorf("want %q and no check run:\n%s", tc.want, h.stdout.String())
			}
		})
	}
}
