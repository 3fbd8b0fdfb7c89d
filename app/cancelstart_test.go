package app

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/formula-code/template-verify/publish"
)

// cancelAfterCreate is the API transport that cancels the worker's
// context (a newer push's JobCancel) once GitHub has made the check run
// named name.
type cancelAfterCreate struct {
	name   string
	cancel func()
	once   sync.Once
}

func (c *cancelAfterCreate) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/check-runs") && bytes.Contains(body, []byte(`"name":"`+c.name+`"`)) {
		c.once.Do(c.cancel)
	}
	return resp, err
}

// A newer push's cancel that reaches a run while it makes its check runs
// (the render check's made, the gate's not yet) concludes the runs made
// as cancelled: their ids are on GitHub only, since the session's Start
// did not return them. Found by scripts/replicas.sh, where a superseded
// head's render run stayed in_progress.
func TestPromiseCancelDuringTheRunsCreationConcludesThem(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		old, newer := h.repo.heads[0], h.repo.heads[1]
		h.addPull(8, newer, false)
		v := &stubVerify{}
		ctx := context.Background()
		wctx, cancel := context.WithCancelCause(ctx)
		var srv *server
		var err error
		var job func(delivery, head string) *Job
		// The newer push comes while the older head's runs are made: it is
		// queued, and its announcer's cancel reaches the worker.
		front := &cancelAfterCreate{name: publish.RunName("render"), cancel: func() {
			if _, _, err := srv.q.enqueueVerify(ctx, job("mid-start-2", newer)); err != nil {
				t.Error(err)
			}
			cancel(river.ErrJobCancelledRemotely)
		}}
		cfg := Config{
			AppID: testAppID, PrivateKey: keyPEM(appKey(t)), WebhookSecret: []byte(testSecret), APIURL: h.gh.URL,
			DataDir: h.data, DatabaseURL: h.dbURL, AppSlug: "x", AllowUnsandboxed: true, Verify: v.fn, Checks: []string{"render"},
			Clock: h.clock, WriteInterval: -1, HTTPTransport: front, Log: slog.New(slog.NewJSONHandler(h.logs, nil)),
		}
		srv, err = newServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.closeQueue()
		if err := srv.q.migrate(ctx); err != nil {
			t.Fatal(err)
		}
		in, err := srv.clients.Installation(testInst)
		if err != nil {
			t.Fatal(err)
		}
		job = func(delivery, head string) *Job {
			return &Job{Delivery: testDeliveryID(delivery), Event: "pull_request", Action: "synchronize", Installation: testInst,
				Owner: testOwner, Repo: testRepo, CloneURL: h.git.URL + "/" + testRepo, PR: 8, HeadSHA: head,
				BaseSHA: h.repo.base, BaseRef: "main", HeadRef: "feature", Author: "dev", State: StateQueued, Accepted: time.Now()}
		}
		j := job("mid-start-1", old)
		id, _, err := srv.q.enqueueVerify(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		if j.RunID, err = srv.createQueued(ctx, in, j); err != nil {
			t.Fatal(err)
		}
		if err := srv.q.saveState(ctx, j); err != nil {
			t.Fatal(err)
		}
		err = (&verifyWorker{s: srv}).Work(wctx, &river.Job[verifyArgs]{JobRow: &rivertype.JobRow{ID: id}, Args: verifyArgs{Job: *j, Head: headOf(j)}})
		if err != nil {
			t.Errorf("Work: %v, want nil (the run concluded as superseded)", err)
		}
		runs := h.runsOf(old)
		if _, ok := runs[publish.RunName("render")]; !ok {
			t.Fatalf("the render check's run was not made before the cancel: %v", runs)
		}
		for name, r := range runs {
			if r.Status != "completed" || r.Conclusion != "cancelled" {
				t.Errorf("the older head's run %q: %s %s, want completed cancelled", name, r.Status, r.Conclusion)
			}
		}
		if n := v.calls.Load(); n != 0 {
			t.Errorf("the superseded head was verified (%d calls)", n)
		}
	})
}
