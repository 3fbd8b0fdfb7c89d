package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// budgets makes publishing contexts whose budget the test ends: expire
// ends every budget made so far, as a verification longer than
// publishTimeout does.
type budgets struct {
	mu      sync.Mutex
	cancels []context.CancelCauseFunc
}

func (b *budgets) make(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	b.mu.Lock()
	b.cancels = append(b.cancels, cancel)
	b.mu.Unlock()
	return c, func() { cancel(context.Canceled) }
}

func (b *budgets) expire() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.cancels {
		c(context.DeadlineExceeded)
	}
	b.cancels = nil
}

// A verification that outlasts the publishing budget still concludes
// every run: each publishing step gets its budget when it starts (issue
// 20: runJob made its context before the verification).
func TestPublishAfterALongVerification(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := &budgets{}
	h.setup = func(s *server) { s.publishBudget = b.make }
	v := &stubVerify{}
	h.start(func(ctx context.Context, in verify.Options) (*report.Report, error) {
		b.expire() // the budgets made before the verification run out
		return v.fn(ctx, in)
	})
	runs := h.runPR(20, h.repo.heads[0])
	for _, name := range []string{RunName, "template-verify / render", "template-verify / gate"} {
		if !strings.HasPrefix(runs[name], "success") {
			t.Errorf("run %q: %q, want success", name, runs[name])
		}
	}
}

// failingWrites fails every PATCH to GitHub while on is set, as a GitHub
// outage does.
type failingWrites struct {
	on    atomic.Bool
	fails atomic.Int32
}

func (f *failingWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.on.Load() && r.Method == http.MethodPatch {
		f.fails.Add(1)
		return nil, errors.New("connection reset by the test")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// publishFails starts a server whose publishing fails after the
// verification, and returns the switch of the failure.
func publishFails(h *harness, setup func(*server)) *failingWrites {
	fw := &failingWrites{}
	h.transport = fw
	h.setup = setup
	v := &stubVerify{}
	h.start(func(ctx context.Context, in verify.Options) (*report.Report, error) {
		fw.on.Store(true)
		return v.fn(ctx, in)
	})
	head := h.repo.heads[1]
	h.addPull(21, head, false)
	h.gh.SetPermission(testFull, "dev", "write")
	h.send("pull_request", "pf-"+head[:8], h.pullPayload("synchronize", 21, head, false))
	h.waitFor("the stored publish", func() bool {
		j, ok, err := h.srv.q.loadState(context.Background(), testDeliveryID("pf-"+head[:8]))
		return err == nil && ok && j.State == StatePublish && j.Unpublished.Tries >= 1
	})
	return fw
}

// allSucceeded checks that every run on head concluded as success.
func allSucceeded(t *testing.T, h *harness, head string) {
	t.Helper()
	h.waitFor("the runs of the head", func() bool { return h.allDone(head, 3) && h.idle() })
	for name, r := range h.runsOf(head) {
		if r.Conclusion != "success" {
			t.Errorf("run %q: %q, want success: %s", name, r.Conclusion, r.Summary)
		}
	}
}

// A publish that fails is stored and a later try of the same process
// concludes the runs and the gate, without a new verification.
func TestFailedPublishIsTriedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	fw := publishFails(h, func(s *server) { s.publishDelay = 200 * time.Millisecond })
	if n := fw.fails.Load(); n == 0 {
		t.Fatal("no write failed")
	}
	if r := h.runsOf(h.repo.heads[1])["template-verify / render"]; r.Status != "in_progress" {
		t.Fatalf("the render run is %s though every write failed", r.Status)
	}
	fw.on.Store(false)
	allSucceeded(t, h, h.repo.heads[1])
}

// A publish that still fails when the server stops is concluded at the
// next start.
func TestFailedPublishIsDoneAtTheNextStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	fw := publishFails(h, func(s *server) { s.publishTries = 1 })
	h.stop()
	fw.on.Store(false)
	h.setup = nil
	v := &stubVerify{}
	h.start(v.fn)
	allSucceeded(t, h, h.repo.heads[1])
	if v.calls.Load() != 0 {
		t.Errorf("the next start verified again %d times; want only a publish", v.calls.Load())
	}
}

// While a new push is verified, the App's comment shows "verifying <sha>…"
// over the previous result, and the result of the new push replaces it.
func TestNewPushShowsVerifying(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first, second := h.repo.heads[0], h.repo.heads[1]
	v := &stubVerify{block: second, started: make(chan string, 8)}
	h.start(v.fn)
	h.runPR(30, first)
	cs := h.gh.Comments(testFull, 30)
	if len(cs) != 1 || strings.Contains(cs[0].Body, "Verifying") {
		t.Fatalf("after the first push: %d comments, want 1 without a verifying line", len(cs))
	}
	previous := cs[0].Body
	h.addPull(30, second, false)
	h.send("pull_request", "fc-"+second[:8], h.pullPayload("synchronize", 30, second, false))
	want := "Verifying `" + second[:12] + "`…"
	h.waitFor("the verifying line", func() bool {
		cs := h.gh.Comments(testFull, 30)
		return len(cs) == 1 && strings.Contains(cs[0].Body, want)
	})
	body := h.gh.Comments(testFull, 30)[0].Body
	// The previous result stays under the line.
	if !strings.Contains(body, report.WithoutVerifying(previous)[len(report.Marker):]) {
		t.Errorf("the verifying comment lost the previous result:\n%s", body)
	}
}
