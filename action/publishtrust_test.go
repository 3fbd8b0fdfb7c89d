package action

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/publish"
)

var renderPasses = checks.Result{Check: "render", Conclusion: checks.Success, Title: "Every template renders"}

// setRunHeadRepo sets workflow_run.head_repository in the harness's event
// file: "" removes it (a deleted fork).
func setRunHeadRepo(t *testing.T, h *harness, full string) {
	t.Helper()
	path := h.env["GITHUB_EVENT_PATH"]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	wr := ev["workflow_run"].(map[string]any)
	if full == "" {
		delete(wr, "head_repository")
	} else {
		wr["head_repository"] = map[string]any{"full_name": full, "fork": full != repoFull}
	}
	out, _ := json.Marshal(ev)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A fork's pull_request run runs the fork's own workflow file, so the
// report it uploads is whatever the fork wants. The publisher shows its
// results, marked as the pull request's own, but the gate never passes
// from it: a passing report makes the gate action_required (GitHub does
// not count that as passed), a failing one still fails it. A run and a
// pull request of the base repository keep the gate the report gives.
func TestWorkflowRunForkReportCannotPassTheGate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		results  []checks.Result
		runRepo  string // the event's head_repository; "-": as the payload has it (a fork)
		pullRepo string // the pull request's head repository
		gate     string
		marked   bool // the runs and the comment say the report is the pull request's own
	}{
		{"fork report passes", []checks.Result{renderPasses, restorePasses}, "-", "fork/hello", "action_required", true},
		{"fork report with no template changed", nil, "-", "fork/hello", "action_required", true},
		{"fork report fails", []checks.Result{renderFails, restorePasses}, "-", "fork/hello", "failure", true},
		{"run of the base repository, pull request from a fork", []checks.Result{renderPasses}, repoFull, "fork/hello", "action_required", true},
		{"run without head repository", []checks.Result{renderPasses}, "", "fork/hello", "action_required", true},
		{"run and pull request of the base repository", []checks.Result{renderPasses, restorePasses}, repoFull, repoFull, "success", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, head := publishHarness(t, func(head string) []byte { return reportJSON(t, head, tc.results...) })
			if tc.runRepo != "-" {
				setRunHeadRepo(t, h, tc.runRepo)
			}
			h.srv.AddPull(repoFull, fakegithub.Pull{Number: forkPR, HeadSHA: head, HeadRef: "changes", BaseSHA: strings.Repeat("b", 40),
				BaseRef: "main", HeadRepo: tc.pullRepo, Fork: tc.pullRepo != repoFull})
			if code := h.run(); code != ExitPass {
				t.Fatalf("exit %d\n%s", code, h.stdout.String())
			}
			runs := h.srv.CheckRuns()
			if len(runs) != len(tc.results)+1 {
				t.Fatalf("%d check runs, want %d", len(runs), len(tc.results)+1)
			}
			for _, r := range runs {
				if r.Name == publish.RunName(checks.GateCheck) {
					if r.Conclusion != tc.gate {
						t.Errorf("gate %s (%q), want %s", r.Conclusion, r.Title, tc.gate)
					}
					if tc.gate == "action_required" && (!strings.Contains(r.Title, "cannot pass the gate") ||
						!strings.Contains(r.Summary, "/template-verify") || !strings.Contains(r.Summary, "trusted workflow")) {
						t.Errorf("gate title %q, summary:\n%s", r.Title, r.Summary)
					}
					continue
				}
				if got := strings.Contains(r.Summary, "reported by the pull request's own job"); got != tc.marked {
					t.Errorf("%s: summary marks the report as the pull request's own: %v, want %v:\n%s", r.Name, got, tc.marked, r.Summary)
				}
			}
			cs := h.srv.Comments(repoFull, forkPR)
			if len(cs) != 1 {
				t.Fatalf("%d comments", len(cs))
			}
			if got := strings.Contains(cs[0].Body, "reported by the pull request's own job"); got != tc.marked {
				t.Errorf("comment marks the report as the pull request's own: %v, want %v:\n%.3000s", got, tc.marked, cs[0].Body)
			}
		})
	}
}
