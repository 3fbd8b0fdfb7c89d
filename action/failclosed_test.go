package action

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// runCaught runs the Action and turns a panic into a test error, so that
// the check runs can be looked at afterwards.
func (h *harness) runCaught() (code int) {
	defer func() {
		if p := recover(); p != nil {
			h.t.Errorf("the Action panicked: %v", p)
			code = -1
		}
	}()
	return h.run()
}

// TestActionFailsClosed: whatever stops the verification, no check run
// stays in progress or concludes as GitHub counts passed (success,
// neutral, skipped), and the gate fails with the reason.
func TestActionFailsClosed(t *testing.T) {
	t.Parallel()
	brokenBase := func(t *testing.T) (string, string, string) {
		r := gittest.New(t)
		r.Write(map[string]string{".github/template-verify.yml": "version: [\n"})
		base := r.Commit("base")
		r.Write(map[string]string{".github/template-verify.yml": "version: 1\n"})
		return r.Dir(), base, r.Commit("head")
	}
	for _, tc := range []struct {
		name    string
		repo    func(*testing.T) (string, string, string)
		baseRef string
		verify  func(context.Context, verify.Options) (*report.Report, error)
		code    int
		reason  string
	}{
		{"internal error", nil, "main", func(context.Context, verify.Options) (*report.Report, error) {
			return nil, errors.New("disk full")
		}, ExitFail, "disk full"},
		{"panic in the verification", nil, "main", func(context.Context, verify.Options) (*report.Report, error) {
			panic("index out of range")
		}, ExitFail, "index out of range"},
		// The base's config does not decode, so its gated branches are
		// unknown: the gate applies even to a branch the defaults do not
		// gate.
		{"unreadable base policy", brokenBase, "develop", func(context.Context, verify.Options) (*report.Report, error) {
			return nil, errors.New("disk full")
		}, ExitFail, "disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := tc.repo
			if repo == nil {
				repo = smallRepo
			}
			dir, base, head := repo(t)
			h := newHarness(t, nil, dir, event(t, base, head, func(pr map[string]any) { pr["base"].(map[string]any)["ref"] = tc.baseRef }))
			h.checks = stubChecks("render", "restore")
			h.verify = tc.verify
			if code := h.runCaught(); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, h.stdout.String())
			}
			runs := h.srv.CheckRuns()
			if len(runs) != 3 {
				t.Fatalf("%d runs, want 3", len(runs))
			}
			for _, r := range runs {
				if r.Status != "completed" || r.Conclusion != "failure" || !strings.Contains(r.Summary, tc.reason) {
					t.Errorf("%s: %s/%s %q, want completed/failure with the reason", r.Name, r.Status, r.Conclusion, r.Summary)
				}
			}
		})
	}
}

// TestActionGateIgnoresTheHeadsConfig: the real verification of a head
// whose config narrows the gate; the gate is read at the base.
func TestActionGateIgnoresTheHeadsConfig(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{"README": "1\n"})
	base := r.Commit("base")
	r.Write(map[string]string{".github/template-verify.yml": "version: 1\ngate: {branches: [nothing]}\nfoo: 1\n"})
	head := r.Commit("head")
	h := newHarness(t, nil, r.Dir(), event(t, base, head, nil))
	h.checks = stubChecks("render")
	if code := h.run(); code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, h.stdout.String())
	}
	runs := h.srv.CheckRuns()
	if g := runs[len(runs)-1]; g.Name != publish.RunName(checks.GateCheck) || g.Conclusion != "failure" || !strings.Contains(g.Summary, "foo") {
		t.Errorf("gate %s %s %q, want failure naming the unknown key", g.Name, g.Conclusion, g.Summary)
	}
}
