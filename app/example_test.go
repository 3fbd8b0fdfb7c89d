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

// TestRealExample runs the App's own verification (verify.Run: every
// default check, as in production) on the example repository, served over
// git smart HTTP, for the good head and the bad head. The check runs and
// conclusions are those of the CLI's demo goldens.
func TestRealExample(t *testing.T) {
	t.Parallel()
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
	h.checks = nil // the default checks' names
	h.start(nil)   // nil: verify.Run
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
	// The App's run, one per check, and the gate.
	const runs = 1 + 3 + 1
	waitUntil(t, 10*time.Minute, "both verifications", func() bool {
		return h.allDone(good, runs) && h.allDone(bad, runs) && h.idle()
	})
	want := map[string]map[string]string{
		good: {RunName: "success", "template-verify / render": "success", "template-verify / restore": "success", "template-verify / pytest": "success", "template-verify / gate": "success",
			// sync discovers that test.sh's pattern array equals the config's YAML list.
			"template-verify / sync": "success", "template-verify / names": "success", "template-verify / taint": "success", "template-verify / description": "success", "template-verify / archive": "skipped", "template-verify / ledger": "skipped"},
		bad: {RunName: "failure", "template-verify / render": "failure", "template-verify / restore": "success", "template-verify / pytest": "failure", "template-verify / gate": "failure",
			// The bad head's test.sh does not parse, so taint cannot analyse it: not run, published as neutral;
			// and the discovered copy in it cannot be read: a sync failure.
			"template-verify / sync": "failure", "template-verify / names": "skipped", "template-verify / taint": "neutral", "template-verify / description": "success", "template-verify / archive": "skipped", "template-verify / ledger": "skipped"},
	}
	for sha, wantRuns := range want {
		got := h.runsOf(sha)
		if len(got) != len(wantRuns) {
			t.Errorf("%s: %d check runs, want %d", short(sha), len(got), len(wantRuns))
		}
		for name, conclusion := range wantRuns {
			if c := got[name]; c.Conclusion != conclusion {
				t.Errorf("%s: %s concluded %q (%s), want %q\n%s\n%s", short(sha), name, c.Conclusion, c.Title, conclusion, c.Summary, c.Text)
			}
		}
	}
	for n := 1; n <= 2; n++ {
		cs := h.gh.Comments(testFull, n)
		if len(cs) != 1 || cs[0].Author != botLogin {
			t.Fatalf("pull request #%d: %d comments", n, len(cs))
		}
		for _, section := range []string{"## Verification", "| render |", "| restore |", "| pytest |"} {
			if !strings.Contains(cs[0].Body, section) {
				t.Errorf("pull request #%d: the comment lacks %q", n, section)
			}
		}
	}
}
