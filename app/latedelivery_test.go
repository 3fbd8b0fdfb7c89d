package app

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"
)

// A delivery of an older push that comes after the newer push's (GitHub
// redelivers a delivery a replica did not answer, a minute or a day
// later) is dropped, since the pull request's head on GitHub is the newer
// one: it neither queues the older head again nor makes the newer head's
// job look superseded. Here the older head's job was cancelled while it
// waited, which River's unique jobs do not hold. Found by
// scripts/replicas.sh, where such a redelivery cancelled the final head's
// job and queued the older head again, and the next delivery of the
// final head queued that once more: a second App run on both heads.
func TestPromiseLateDeliveryOfAnOlderHeadIsDropped(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		old, newer := h.repo.heads[0], h.repo.heads[1]
		h.addPull(9, newer, false)
		log := slog.New(slog.NewJSONHandler(h.logs, nil))
		cfg := Config{
			AppID: testAppID, PrivateKey: keyPEM(appKey(t)), WebhookSecret: []byte(testSecret), APIURL: h.gh.URL,
			DataDir: h.data, DatabaseURL: h.dbURL, AppSlug: "x", AllowUnsandboxed: true, Verify: (&stubVerify{}).fn, Checks: h.checks,
			Clock: h.clock, WriteInterval: -1, Log: log,
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
		at := time.Now()
		job := func(delivery, head string) *Job {
			at = at.Add(time.Second)
			return &Job{Delivery: testDeliveryID(delivery), Event: "pull_request", Action: "synchronize", Installation: testInst,
				Owner: testOwner, Repo: testRepo, CloneURL: h.git.URL + "/" + testRepo, PR: 9, HeadSHA: head,
				BaseSHA: h.repo.base, BaseRef: "main", HeadRef: "feature", Author: "dev", State: StateQueued, Accepted: at}
		}
		// The older push's job waits; the newer push's cancels it.
		if _, _, err := srv.q.enqueueVerify(ctx, job("late-1", old)); err != nil {
			t.Fatal(err)
		}
		_, older, err := srv.q.enqueueVerify(ctx, job("late-2", newer))
		if err != nil || len(older) != 1 {
			t.Fatalf("the newer push: older jobs %v, %v", older, err)
		}
		for _, id := range older {
			srv.cancelOlder(ctx, in, id, newer, log)
		}
		// The older push's delivery comes again, accepted last.
		err = srv.prepare(ctx, job("late-3", old), log)
		if !errors.Is(err, errDrop) {
			t.Errorf("the late delivery of the older head: %v, want it dropped", err)
		}
		if latest, err := srv.q.latestHead(ctx, "octo/hello#9"); err != nil || latest != newer {
			t.Errorf("the newest head of #9 is %.7s (%v), want the newer head %.7s", latest, err, newer)
		}
		for _, c := range h.gh.CheckRuns() {
			if c.HeadSHA == old {
				t.Errorf("the older head got a check run %q (%s)", c.Name, c.Status)
			}
		}
	})
}
