package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/githttp"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// TestRealExample runs the real verification (verify.Run with the render
// check) on the example repository, served over git smart HTTP,
// for the good head and the bad head.
func TestRealExample(t *testing.T) {
	if testing.Short() {
		t.Skip("the real verification takes a while")
	}
	h := newHarness(t)
	root := t.TempDir()
	built, err := examples.Build(context.Background(), filepath.Join(root, testRepo))
	if err != nil {
		t.Fatal(err)
	}
	h.git = githttp.Start(t, root)
	h.repo = fixtureRepo{base: built.Base}
	// The real verification of the real example, with the render check
	// only: it tells the good head from the bad one, and the full set of
	// checks runs on the same example in the CLI's demo golden tests.
	h.checks = []string{"render"}
	h.start(func(ctx context.Context, in VerifyInput) (*report.Report, error) {
		return verify.Run(ctx, verify.Options{
			RepoDir: in.Dir, Base: in.Base, Head: in.Head, RepoName: in.RepoName,
			Checks: func() []checks.Check { return []checks.Check{render.New()} },
			Log:    in.Log,
		})
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", h.logs.String())
		}
	})
	h.gh.SetPermission(testFull, "dev", "write")

	for n, head := range map[int]string{1: examples.HeadGood, 2: examples.HeadBad} {
		sha := built.Heads[head]
		h.addPull(n, sha, false)
		h.send("pull_request", "ex-"+head, h.pullPayload("opened", n, sha, false))
	}
	good, bad := built.Heads[examples.HeadGood], built.Heads[examples.HeadBad]
	waitUntil(t, 5*time.Minute, "both verifications", func() bool { return h.allDone(good, 3) && h.allDone(bad, 3) && h.idle() })
	for sha, want := range map[string]string{good: "success", bad: "failure"} {
		runs := h.runsOf(sha)
		if runs["template-verify / gate"].Conclusion != want || runs[RunName].Conclusion != want {
			var got []string
			for name, c := range runs {
				got = append(got, name+"="+c.Conclusion+" ("+c.Title+")")
			}
			t.Errorf("%s: want gate %s, got %s", short(sha), want, strings.Join(got, "; "))
		}
	}
	for n := 1; n <= 2; n++ {
		if cs := h.gh.Comments(testFull, n); len(cs) != 1 || cs[0].Author != botLogin {
			t.Errorf("pull request #%d: %d comments", n, len(cs))
		}
	}
}
