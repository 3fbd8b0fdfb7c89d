package action

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// mergeGroupEvent writes a merge_group event from the trimmed real payload,
// pointed at base and head of repoFull.
func mergeGroupEvent(t *testing.T, base, head string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/github-webhooks/merge_group/checks_requested.payload.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	mg := ev["merge_group"].(map[string]any)
	mg["head_sha"], mg["base_sha"] = head, base
	ev["repository"].(map[string]any)["full_name"] = repoFull
	out, _ := json.Marshal(ev)
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A merge queue entry is verified (base_sha..head_sha) and its check runs
// and gate go on the queue's head commit, so a required gate reports and
// the queue moves. Before: exit 2, no check run, the queue stalls.
func TestMergeGroupPublishesGateOnQueueHead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		results []checks.Result
		code    int
		gate    string
	}{
		{"failing entry", []checks.Result{renderFails, restorePasses}, ExitFail, "failure"},
		{"passing entry", []checks.Result{{Check: "render", Conclusion: checks.Success, Title: "4 renders pass"}, restorePasses}, ExitPass, "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, base, head := smallRepo(t)
			h := newHarness(t, nil, dir, mergeGroupEvent(t, base, head))
			h.env["GITHUB_EVENT_NAME"] = "merge_group"
			h.checks = stubChecks("render", "restore")
			h.verify = stubReport(tc.results...)
			if code := h.run(); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, h.stdout.String())
			}
			if h.lastOpt.Base != base || h.lastOpt.Head != head {
				t.Errorf("verified %s..%s, want %s..%s", h.lastOpt.Base, h.lastOpt.Head, base, head)
			}
			var gate string
			for _, r := range h.srv.CheckRuns() {
				if r.HeadSHA != head || r.Status != "completed" {
					t.Errorf("%s: %s on %s, want completed on the queue's head %s", r.Name, r.Status, r.HeadSHA, head)
				}
				if r.Name == publish.RunName(checks.GateCheck) {
					gate = r.Conclusion
				}
			}
			if gate != tc.gate {
				t.Errorf("gate %q, want %q (the default gated branches hold main)", gate, tc.gate)
			}
			if n := len(h.srv.Comments(repoFull, prNumber)); n != 0 {
				t.Errorf("%d comments on a merge queue entry", n)
			}
		})
	}
}

func TestParseMergeGroup(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("a", 40)
	for _, tc := range []struct{ name, body, err string }{
		{"no merge_group", `{"repository":{"full_name":"o/r"}}`, "field merge_group is missing"},
		{"no base_sha", `{"merge_group":{"head_sha":"` + sha + `","base_ref":"refs/heads/main"},"repository":{"full_name":"o/r"}}`, "merge_group.base_sha is missing"},
		{"short head", `{"merge_group":{"head_sha":"abc","base_sha":"` + sha + `","base_ref":"refs/heads/main"},"repository":{"full_name":"o/r"}}`, "not a full commit sha"},
		{"no repository", `{"merge_group":{"head_sha":"` + sha + `","base_sha":"` + sha + `","base_ref":"refs/heads/main"}}`, "repository.full_name"},
		{"ok", `{"merge_group":{"head_sha":"` + sha + `","base_sha":"` + sha + `","base_ref":"refs/heads/main"},"repository":{"full_name":"o/r"}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := parseMergeGroup("event.json", []byte(tc.body))
			if tc.err == "" {
				if err != nil || ev.BaseRef != "main" || ev.Fork() || ev.Number != 0 {
					t.Fatalf("%+v %v", ev, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// The default comment-mode (changes) comments on a pull request that
// changes a template, and not on one that changes none, unless the
// comment exists. Before: a comment on every pull request.
func TestCommentModeOfTheAction(t *testing.T) {
	t.Parallel()
	noTemplate := func(h *harness) {
		inner := h.verify
		h.verify = func(ctx context.Context, o verify.Options) (*report.Report, error) {
			rep, err := inner(ctx, o)
			rep.Templates = nil
			return rep, err
		}
	}
	for _, tc := range []struct {
		name     string
		mode     string
		noChange bool
		existing bool
		comments int
	}{
		{"default, a template changed", "", false, false, 1},
		{"default, nothing changed", "", true, false, 0},
		{"default, nothing changed, comment exists", "", true, true, 1},
		{"always, nothing changed", "always", true, false, 1},
		{"failures, passing", "failures", false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stubHarness(t, nil, restorePasses)
			if tc.mode != "" {
				h.env["INPUT_COMMENT-MODE"] = tc.mode
			}
			if tc.noChange {
				noTemplate(h)
			}
			if tc.existing {
				h.srv.AddComment(repoFull, prNumber, CommentAuthor, report.Marker+"\nold")
			}
			if code := h.run(); code != ExitPass {
				t.Fatalf("exit %d\n%s", code, h.stdout.String())
			}
			cs := h.srv.Comments(repoFull, prNumber)
			if len(cs) != tc.comments {
				t.Fatalf("%d comments, want %d", len(cs), tc.comments)
			}
			if tc.existing && strings.HasSuffix(cs[0].Body, "\nold") {
				t.Error("the comment that exists was not edited")
			}
			if (h.outputs()["comment-url"] != "") != (tc.comments == 1) {
				t.Errorf("comment-url %q", h.outputs()["comment-url"])
			}
		})
	}
}
