package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The JSON report is written under RUNNER_TEMP as a new file: neither a
// link that the pull request commits into the checkout, nor a link left
// in the report folder, makes the Action write elsewhere. Before, the
// report went to template-verify-report.json in the checkout, through a
// committed link.
func TestReportIsWrittenUnderRunnerTemp(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, restorePasses)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := h.env["GITHUB_WORKSPACE"]
	if err := os.Symlink(victim, filepath.Join(ws, "template-verify-report.json")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(h.env["RUNNER_TEMP"], ReportDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, ReportName)); err != nil {
		t.Fatal(err)
	}
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the Action wrote through a link: %.80q", b)
	}
	got := h.outputs()["report-json"]
	if got != filepath.Join(dir, ReportName) {
		t.Fatalf("report-json %q", got)
	}
	if st, err := os.Lstat(got); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("report %v %v", st, err)
	}
}

// In a Docker action RUNNER_TEMP is a path of the runner that the
// container does not see; GitHub mounts RUNNER_TEMP/_github_home as HOME.
// The report goes to HOME, and the output names the runner's path.
func TestReportPathInContainer(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, restorePasses)
	home := t.TempDir()
	h.env["RUNNER_TEMP"] = "/home/runner/work/_temp"
	h.env["HOME"] = home
	h.env["GITHUB_ACTIONS"] = "true"
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if got := h.outputs()["report-json"]; got != "/home/runner/work/_temp/_github_home/template-verify/report.json" {
		t.Errorf("report-json %q", got)
	}
	if _, err := os.Stat(filepath.Join(home, ReportDir, ReportName)); err != nil {
		t.Error(err)
	}
}

// On a pull request from a fork the job summary says how to add the
// workflow_run publisher, since without it a required gate never reports.
func TestForkSummarySaysHowToPublish(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, func(pr map[string]any) {
		pr["head"].(map[string]any)["repo"].(map[string]any)["full_name"] = "fork/hello"
	}, restorePasses)
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	s := h.summary()
	if !strings.Contains(s, "template-verify-publish.yml") || !strings.Contains(s, "workflow_run") {
		t.Errorf("summary has no publisher note:\n%.600s", s)
	}
	if len(h.srv.CheckRuns()) != 0 {
		t.Error("a fork's run made check runs")
	}
}

// The pull request's body reaches the verification (the description
// check reads it); a merge queue entry has none.
func TestDescriptionIsThePullRequestBody(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, func(pr map[string]any) { pr["body"] = "Fixes the restore step.\n\nTemplates: tests" }, restorePasses)
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if h.lastOpt.Description != "Fixes the restore step.\n\nTemplates: tests" {
		t.Errorf("Description %q", h.lastOpt.Description)
	}
}

// A link in place of the report folder is not followed: the report is
// not written, and the output is empty.
func TestReportFolderLinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, restorePasses)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(h.env["RUNNER_TEMP"], ReportDir)); err != nil {
		t.Fatal(err)
	}
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ReportName)); err == nil {
		t.Error("the report was written through the link")
	}
	if got, ok := h.outputs()["report-json"]; !ok || got != "" {
		t.Errorf("report-json %q (set: %v), want empty", got, ok)
	}
	if !strings.Contains(h.stdout.String(), "The JSON report was not written") {
		t.Errorf("no warning:\n%s", h.stdout.String())
	}
}
