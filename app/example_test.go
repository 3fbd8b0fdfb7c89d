package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/githttp"
)

// TestRealExample runs the real verification (verify.Run with the
// default checks) on the example repository, served over git smart HTTP,
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
	h.checks = nil // the default checks
	h.start(nil)   // the default verification
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
	waitUntil(t, 10*time.Minute, "both verifications", func() bool { return h.allDone(good, 5) && h.allDone(bad, 5) && h.idle() })
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
