package action

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// TestEndToEndExample runs the Action on the example repository's pull
// requests with the real render check, against the fake GitHub. The other
// checks have their own tests; the render check keeps this test short.
func TestEndToEndExample(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the example repository and renders every template")
	}
	ctx := context.Background()
	built, err := examples.Build(ctx, filepath.Join(t.TempDir(), "datasmith-mini"))
	if err != nil {
		t.Fatal(err)
	}
	renderOnly := func() []checks.Check { return []checks.Check{render.New()} }
	// One real verification per head; a second run of the Action on the
	// same head reuses it.
	reports := map[string]*report.Report{}
	memo := func(ctx context.Context, o verify.Options) (*report.Report, error) {
		if rep, ok := reports[o.Head]; ok {
			return rep, nil
		}
		rep, err := verify.Run(ctx, o)
		if err == nil {
			reports[o.Head] = rep
		}
		return rep, err
	}
	srv := fakegithub.New(t)
	good, bad := built.Heads[examples.HeadGood], built.Heads[examples.HeadBad]

	h := newHarness(t, srv, built.Dir, event(t, built.Base, good, nil))
	h.checks, h.verify = renderOnly, memo
	if code := h.run(); code != ExitPass {
		t.Fatalf("good head: exit %d\n%s", code, h.stdout.String())
	}
	conclusions := func(sha string) map[string]string {
		out := map[string]string{}
		for _, r := range srv.CheckRuns() {
			if r.HeadSHA == sha {
				if r.Status != "completed" {
					t.Errorf("%s on %s is %s", r.Name, sha, r.Status)
				}
				out[strings.TrimPrefix(r.Name, "template-verify / ")] = r.Conclusion
			}
		}
		return out
	}
	if got := conclusions(good); got["render"] != "success" || got["gate"] != "success" || len(got) != 2 {
		t.Errorf("good head check runs %v", got)
	}
	cs := srv.Comments(repoFull, prNumber)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, report.Marker) || !strings.Contains(cs[0].Body, "## Verification") {
		t.Fatalf("comments after the first run: %d", len(cs))
	}
	if out := h.outputs(); out["conclusion"] != "success" || out["comment-url"] == "" {
		t.Errorf("outputs %v", out)
	}
	if s := h.summary(); !strings.Contains(s, "## Verification") {
		t.Errorf("job summary %.300s", s)
	}

	// The same push again edits the comment: the verifying line, then
	// the result.
	if code := h.run(); code != ExitPass {
		t.Fatalf("second run: exit %d", code)
	}
	if cs2 := srv.Comments(repoFull, prNumber); len(cs2) != 1 || cs2[0].ID != cs[0].ID || cs2[0].Edits != 2 {
		t.Errorf("after the second run: %+v", cs2)
	}

	// A push of the bad head fails render and the gate, and the job.
	hb := newHarness(t, srv, built.Dir, event(t, built.Base, bad, nil))
	hb.checks, hb.verify = renderOnly, memo
	if code := hb.run(); code != ExitFail {
		t.Fatalf("bad head: exit %d\n%s", code, hb.stdout.String())
	}
	if got := conclusions(bad); got["render"] != "failure" || got["gate"] != "failure" {
		t.Errorf("bad head check runs %v", got)
	}
	var renderRun fakegithub.CheckRun
	for _, r := range srv.CheckRuns() {
		if r.HeadSHA == bad && r.Name == publish.RunName("render") {
			renderRun = r
		}
	}
	if len(renderRun.Annotations) == 0 || !strings.HasPrefix(renderRun.Annotations[0].Path, "src/datasmith/") || renderRun.Annotations[0].AnnotationLevel != "failure" {
		t.Errorf("render annotations %+v", renderRun.Annotations)
	}
	if cs3 := srv.Comments(repoFull, prNumber); len(cs3) != 1 || cs3[0].Edits != 4 {
		t.Errorf("after the bad push: %d comments", len(cs3))
	}

	// The bad head from a fork: no request at all, the report in the job
	// summary, the findings as workflow annotations.
	forkSrv := fakegithub.New(t)
	fork := func(pr map[string]any) {
		pr["head"].(map[string]any)["repo"].(map[string]any)["fork"] = true
		pr["head"].(map[string]any)["repo"].(map[string]any)["full_name"] = "someone/hello"
	}
	hf := newHarness(t, forkSrv, built.Dir, event(t, built.Base, bad, fork))
	hf.checks, hf.verify = renderOnly, memo
	if code := hf.run(); code != ExitFail {
		t.Fatalf("fork: exit %d", code)
	}
	if n := len(forkSrv.Requests()); n != 0 {
		t.Errorf("the fork run sent %d requests", n)
	}
	if !strings.Contains(hf.summary(), "Read-only run") || !strings.Contains(hf.summary(), "## Verification") {
		t.Errorf("fork summary %.300s", hf.summary())
	}
	if !regexp.MustCompile(`(?m)^::error file=src/datasmith/[^,]+,line=\d+`).MatchString(hf.stdout.String()) {
		t.Errorf("no file annotation in the fork log:\n%s", hf.stdout.String())
	}
}
