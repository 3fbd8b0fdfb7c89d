package app

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
	"github.com/formula-code/template-verify/verify/child"
)

// The test binary is the verification child (TestMain) when childEnv is
// set: child.Serve with stubVerify, except that the head crashHeadEnv
// names allocates until the child's memory limit stops it.
const (
	childEnv     = "TEMPLATE_VERIFY_TEST_APP_CHILD"
	crashHeadEnv = "TEMPLATE_VERIFY_TEST_APP_CHILD_CRASH"
)

// kept holds the crashing child's allocations.
var kept [][]byte

// runTestChild is the child's main in the test binary.
func runTestChild() int {
	crash := os.Getenv(crashHeadEnv)
	return child.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, func(ctx context.Context, opts verify.Options) (*report.Report, error) {
		if opts.Head == crash {
			for {
				b := make([]byte, 64<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				kept = append(kept, b)
			}
		}
		return (&stubVerify{}).fn(ctx, opts)
	})
}

// TestCrashedVerificationIsNotRun: the verification of one head runs out
// of memory in its child process. That head's checks conclude as not run
// with the reason; the server goes on answering webhooks and verifies
// the next head.
func TestCrashedVerificationIsNotRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	crash, next := h.repo.heads[0], h.repo.heads[1]
	h.config = func(c *Config) {
		c.VerifyChild = &child.Runner{
			Command:   []string{os.Args[0], "-test.run=^$"},
			Env:       append(os.Environ(), childEnv+"=1", crashHeadEnv+"="+crash),
			MaxMemory: 256 << 20,
		}
	}
	h.start(nil)
	h.addPull(7, crash, false)
	h.addPull(8, next, false)
	h.gh.SetPermission(testFull, "dev", "write")
	if got := h.send("pull_request", "d-crash", h.pullPayload("synchronize", 7, crash, false)); got != http.StatusAccepted {
		t.Fatalf("status %d, want 202", got)
	}
	h.waitFor("the runs of the crashing head", func() bool { return h.allDone(crash, 3) })
	if got := h.send("pull_request", "d-next", h.pullPayload("synchronize", 8, next, false)); got != http.StatusAccepted {
		t.Fatalf("after the crash: status %d, want 202", got)
	}
	h.waitFor("the runs of the next head", func() bool { return h.allDone(next, 3) && h.idle() })
	runs := h.runsOf(crash)
	render := runs["template-verify / render"]
	if render.Conclusion != "neutral" || !strings.Contains(render.Summary, "ran out of memory") {
		t.Errorf("crashed head: render %q, %q; want neutral (not run) with the reason", render.Conclusion, render.Summary)
	}
	if app := runs[RunName]; app.Conclusion == "success" {
		t.Errorf("crashed head: the App's run passed: %q", app.Summary)
	}
	for name, r := range h.runsOf(next) {
		if r.Conclusion != "success" {
			t.Errorf("next head: %s %q, want success (%s)", name, r.Conclusion, r.Summary)
		}
	}
}
