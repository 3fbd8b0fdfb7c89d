package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// A new push cancels the older head's job on whichever replica runs it,
// also when that replica was killed with the run open: River's rescuer
// cancels the dead replica's job (its cancel was asked) instead of
// running it again, and the leader's settle job concludes its check runs
// as cancelled, naming the newer head. On both drivers; the killed
// replica is a server process (runFloodServer), the other one runs here.
func TestPromiseSupersededRunOfKilledReplicaConcluded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a server process")
	}
	forDrivers(t, supersededOnKilledReplica)
}

func supersededOnKilledReplica(t *testing.T, h *harness) {
	h.gh.SetPermission(testFull, "dev", "write")
	old, newer := h.repo.heads[0], h.repo.heads[1]
	h.addPull(8, old, false)

	// The first replica: its verification waits for a file that never
	// comes, so the run is open when it is killed. Its rescue time (also
	// its job timeout) is long: the run must not end by itself.
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyFile, keyPEM(appKey(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(floodPlan{APIURL: h.gh.URL, DataDir: h.data, KeyFile: keyFile, GoFile: filepath.Join(dir, "never"),
		DatabaseURL: h.dbURL, RescueAfter: time.Hour, StartedDir: dir})
	if err := os.WriteFile(filepath.Join(dir, "server.json"), plan, 0o600); err != nil {
		t.Fatal(err)
	}
	first := startFloodServer(t, dir, 1)
	if got := sendTo(t, first.url, "pull_request", "push-1", h.pullPayload("synchronize", 8, old, false)); got != http.StatusAccepted {
		t.Fatalf("the first push: %d", got)
	}
	openRuns := func(sha string) int {
		n := 0
		for _, c := range h.gh.CheckRuns() {
			if c.HeadSHA == sha && c.Status != "completed" {
				n++
			}
		}
		return n
	}
	// The App's run and the per-check runs (render, gate) are open, and
	// the verification runs on the first replica: killed before its
	// worker took the job, the job would still be available, and the
	// second replica could run it before the newer push cancels it.
	waitUntil(t, time.Minute, "the old head's runs in progress and its verification started", func() bool {
		_, err := os.Stat(filepath.Join(dir, old))
		return openRuns(old) >= 3 && err == nil
	}, h.seen)
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	first.done <- nil

	// The second replica takes the new push; its announcer cancels the
	// old head's job, which runs on no live replica. Its rescue time is
	// one that its own quick run stays well under. It has the killed
	// process's data folder, so its replica id: at start it takes up the
	// job that process left, and may start the old head again before the
	// newer push arrives. That run waits for its cancel (block): it must
	// end cancelled too, never verified and concluded as a success.
	h.config = func(c *Config) { c.RescueAfter = 30 * time.Second }
	h.start((&stubVerify{block: old}).fn)
	h.addPull(8, newer, false)
	if got := h.send("pull_request", "push-2", h.pullPayload("synchronize", 8, newer, false)); got != http.StatusAccepted {
		t.Fatalf("the new push: %d", got)
	}
	// The killed replica's leadership expires (15 s), River rescues the
	// job once it ran the rescue time (a pass every 30 s), and the
	// settle job (every 15 s here) concludes it after its margin (30 s
	// here): about 2 minutes.
	waitUntil(t, 5*time.Minute, "both heads concluded", func() bool {
		return openRuns(old) == 0 && h.allDone(old, 3) && h.allDone(newer, 3) && h.idle()
	}, h.seen, func() string { l := h.logs.String(); return "log:\n" + l[max(0, len(l)-6000):] })
	checkSuperseded(t, h, old, newer)
}

// A newer push's cancel can reach a worker that has only just taken the
// older head's job (River cancels its context with
// ErrJobCancelledRemotely): the announcer saw the job running and left
// it to the worker, so the worker concludes the App's run as cancelled,
// naming the newer head, instead of failing on its cancelled context
// with the run left queued.
func TestPromiseCancelAtTheStartOfARunConcludes(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		old, newer := h.repo.heads[0], h.repo.heads[1]
		h.addPull(8, newer, false)
		v := &stubVerify{}
		cfg := Config{
			AppID: testAppID, PrivateKey: keyPEM(appKey(t)), WebhookSecret: []byte(testSecret), APIURL: h.gh.URL,
			DataDir: h.data, DatabaseURL: h.dbURL, AppSlug: "x", AllowUnsandboxed: true, Verify: v.fn, Checks: h.checks,
			Clock: h.clock, WriteInterval: -1, Log: slog.New(slog.NewJSONHandler(h.logs, nil)),
		}
		srv, err := newServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.closeQueue()
		ctx := context.Background()
		if err := srv.q.migrate(ctx); err != nil {
			t.Fatal(err)
		}
		in, err := srv.clients.Installation(testInst)
		if err != nil {
			t.Fatal(err)
		}
		job := func(delivery, head string) *Job {
			return &Job{Delivery: testDeliveryID(delivery), Event: "pull_request", Action: "synchronize", Installation: testInst,
				Owner: testOwner, Repo: testRepo, CloneURL: h.git.URL + "/" + testRepo, PR: 8, HeadSHA: head,
				BaseSHA: h.repo.base, BaseRef: "main", HeadRef: "feature", Author: "dev", State: StateQueued, Accepted: time.Now()}
		}
		// The older head's job, queued with its App run.
		j := job("start-1", old)
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
		// The newer push is queued; its announcer's cancel reaches the
		// worker as it starts the older job.
		if _, _, err := srv.q.enqueueVerify(ctx, job("start-2", newer)); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithCancelCause(ctx)
		cancel(river.ErrJobCancelledRemotely)
		err = (&verifyWorker{s: srv}).Work(wctx, &river.Job[verifyArgs]{JobRow: &rivertype.JobRow{ID: id}, Args: verifyArgs{Job: *j, Head: headOf(j)}})
		if err != nil {
			t.Errorf("Work: %v, want nil (the run concluded as superseded)", err)
		}
		r := h.runsOf(old)[RunName]
		if r.Status != "completed" || r.Conclusion != "cancelled" || !strings.Contains(r.Summary, short(newer)) {
			t.Errorf("the older head's App run: %s %s %q, want completed cancelled naming the newer head", r.Status, r.Conclusion, r.Summary)
		}
		if n := v.calls.Load(); n != 0 {
			t.Errorf("the superseded head was verified (%d calls)", n)
		}
	})
}
