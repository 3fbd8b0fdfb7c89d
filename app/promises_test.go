package app

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The promises of the App, each on both drivers (forDrivers): SQLite and
// Postgres. Where a promise is about replicas, a second server runs on
// the same database (replica).

// replica starts a second server on the harness's database, with its own
// data folder, and returns the URL of its webhook handler.
func (h *harness) replica(t *testing.T, v VerifyFunc) (*server, string) {
	t.Helper()
	data := t.TempDir()
	cfg := Config{
		AppID: testAppID, PrivateKey: keyPEM(appKey(t)), WebhookSecret: []byte(testSecret),
		APIURL: h.gh.URL, DataDir: data, Workers: 2, Verify: v, Checks: h.checks,
		Clock: h.clock, WriteInterval: -1, ShutdownGrace: h.grace, Nice: h.nice, AllowUnsandboxed: true,
		DatabaseURL: h.dbURL, PollInterval: 50 * time.Millisecond, Replica: "second",
		Log: slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if h.dbURL == "" {
		cfg.SQLitePath = filepath.Join(h.data, SQLiteFile)
	}
	if h.config != nil {
		h.config(&cfg)
	}
	srv, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(srv.handler())
	t.Cleanup(func() {
		web.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.shutdown(ctx); err != nil {
			t.Errorf("shutdown of the second replica: %v", err)
		}
	})
	return srv, web.URL
}

// sendTo posts a signed delivery to the webhook at base.
func sendTo(t *testing.T, base, event, delivery string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/webhook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", testDeliveryID(delivery))
	req.Header.Set(SignatureHeader, Sign([]byte(testSecret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// rawExec runs one statement on a server's database.
func rawExec(t *testing.T, q queue, stmt string, args ...any) {
	t.Helper()
	ctx := context.Background()
	var err error
	switch rq := q.(type) {
	case *riverQueue[*sql.Tx]:
		err = rq.ops.inTx(ctx, func(tx *sql.Tx) error { _, err := rq.ops.exec(ctx, tx, stmt, args...); return err })
	case *riverQueue[pgx.Tx]:
		err = rq.ops.inTx(ctx, func(tx pgx.Tx) error { _, err := rq.ops.exec(ctx, tx, stmt, args...); return err })
	default:
		t.Fatalf("queue %T", q)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// rawCount counts with one query on a server's database.
func rawCount(t *testing.T, q queue, query string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	var n int
	var err error
	switch rq := q.(type) {
	case *riverQueue[*sql.Tx]:
		err = rq.ops.inTx(ctx, func(tx *sql.Tx) error { return rq.ops.query1(ctx, tx, query, args, &n) })
	case *riverQueue[pgx.Tx]:
		err = rq.ops.inTx(ctx, func(tx pgx.Tx) error { return rq.ops.query1(ctx, tx, query, args, &n) })
	default:
		t.Fatalf("queue %T", q)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The signature is checked before anything is stored; a delivery id, and
// a body, are accepted once, also when the copy reaches another replica.
func TestPromiseSignatureFirstDeliveryOnce(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		head := h.repo.heads[0]
		h.addPull(3, head, false)
		v := &stubVerify{}
		h.start(v.fn)
		_, second := h.replica(t, v.fn)
		body := h.pullPayload("synchronize", 3, head, false)
		if got := h.sendSigned("pull_request", "once-1", body, Sign([]byte("not the secret"), body)); got != http.StatusBadRequest {
			t.Fatalf("bad signature: %d, want 400", got)
		}
		if n := rawCount(t, h.srv.q, `SELECT count(*) FROM template_verify_deliveries`); n != 0 {
			t.Fatalf("a delivery with a bad signature was stored (%d rows)", n)
		}
		if got := h.send("pull_request", "once-1", body); got != http.StatusAccepted {
			t.Fatalf("first delivery: %d, want 202", got)
		}
		// The same id on the other replica; the same body with a new id.
		if got := sendTo(t, second, "pull_request", "once-1", body); got != http.StatusOK {
			t.Fatalf("the same delivery id on the other replica: %d, want 200", got)
		}
		if got := sendTo(t, second, "pull_request", "once-2", body); got != http.StatusOK {
			t.Fatalf("the same body with another id: %d, want 200", got)
		}
		h.waitFor("the run", func() bool { return h.idle() && h.allDone(head, 3) })
		if n := v.calls.Load(); n != 1 {
			t.Fatalf("%d verifications, want 1", n)
		}
	})
}

// One run per pull-request head: deliveries with different ids and
// bodies for one head, spread over two replicas, make one River job
// (unique by head) and one App check run.
func TestPromiseOneRunPerHead(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		head := h.repo.heads[1]
		h.addPull(4, head, false)
		v := &stubVerify{}
		h.start(v.fn)
		_, second := h.replica(t, v.fn)
		for i, action := range []string{"opened", "synchronize", "reopened", "ready_for_review", "synchronize", "opened"} {
			body := h.pullPayload(action, 4, head, false)
			body = append(bytes.TrimSuffix(bytes.TrimSpace(body), []byte("}")), []byte(`,"seq":`+string(rune('0'+i))+`}`)...)
			base := h.web.URL
			if i%2 == 1 {
				base = second
			}
			if got := sendTo(t, base, "pull_request", "head-"+string(rune('a'+i)), body); got != http.StatusAccepted && got != http.StatusOK {
				t.Fatalf("delivery %d: %d", i, got)
			}
		}
		h.waitFor("the run", func() bool { return h.idle() && h.allDone(head, 3) })
		time.Sleep(300 * time.Millisecond) // a second job would be fetched by now
		if n := v.calls.Load(); n != 1 {
			t.Fatalf("%d verifications of one head, want 1", n)
		}
		var appRuns int
		for _, c := range h.gh.CheckRuns() {
			if c.Name == RunName && c.HeadSHA == head {
				appRuns++
			}
		}
		if appRuns != 1 {
			t.Fatalf("%d App check runs on the head, want 1", appRuns)
		}
		if n := rawCount(t, h.srv.q, `SELECT count(*) FROM river_job WHERE kind = $1`, kindVerify); n != 1 {
			t.Fatalf("%d verification jobs, want 1", n)
		}
	})
}

// A new push cancels the run of the older head on whichever replica runs
// it: River's JobCancel reaches the replica by a notification on
// Postgres and by River's poll (every 2 s) on SQLite.
func TestPromiseNewPushCancelsOlderHeadOnAnyReplica(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		old, newer := h.repo.heads[0], h.repo.heads[1]
		h.addPull(8, old, false)
		v := &stubVerify{block: old, started: make(chan string, 4)}
		h.config = func(c *Config) { c.Workers = 1 }
		h.start(v.fn)
		_, second := h.replica(t, v.fn)
		h.send("pull_request", "push-1", h.pullPayload("synchronize", 8, old, false))
		h.waitStarted(v)
		h.addPull(8, newer, false)
		if got := sendTo(t, second, "pull_request", "push-2", h.pullPayload("synchronize", 8, newer, false)); got != http.StatusAccepted {
			t.Fatalf("the new push: %d", got)
		}
		h.waitFor("both heads concluded", func() bool { return h.idle() && h.allDone(old, 3) && h.allDone(newer, 3) })
		checkSuperseded(t, h, old, newer)
	})
}

// checkSuperseded checks that every run of the old head concluded
// cancelled, naming the newer head, and that the newer head's gate passed.
func checkSuperseded(t *testing.T, h *harness, old, newer string) {
	t.Helper()
	for name, r := range h.runsOf(old) {
		if r.Conclusion != "cancelled" || !strings.Contains(r.Summary, short(newer)) {
			t.Errorf("old head %s: %s %q, want cancelled naming the newer head", name, r.Conclusion, r.Summary)
		}
	}
	if r := h.runsOf(newer)["template-verify / gate"]; r.Conclusion != "success" {
		t.Errorf("new head gate: %s", r.Conclusion)
	}
}

// A process that dies MaxAttempts times during one verification gets it
// concluded as failure with the reason, on either driver (the kill
// itself, and River's rescue, are TestFloodThenKillRunsEachHeadOnce).
func TestPromiseAttemptLimitConcludesFailure(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		head := h.repo.heads[0]
		h.addPull(5, head, false)
		first := &stubVerify{block: head, started: make(chan string, 1)}
		h.start(first.fn)
		h.send("pull_request", "lim-1", h.pullPayload("synchronize", 5, head, false))
		h.waitStarted(first)
		h.stop()
		h.editState("lim-1", func(j *Job) { j.Attempts = MaxAttempts })
		second := &stubVerify{}
		h.start(second.fn)
		h.waitFor("the crashed job concluded", func() bool { return h.idle() && h.allDone(head, 3) })
		if n := second.calls.Load(); n != 0 {
			t.Fatalf("the crashed job ran again (%d calls)", n)
		}
		if r := h.runsOf(head)[RunName]; r.Conclusion != "failure" || !strings.Contains(r.Summary, "crashed 3 times") {
			t.Errorf("App run: %s %q, want failure saying it crashed 3 times", r.Conclusion, r.Summary)
		}
	})
}

// A stop drains: a run that does not finish in the grace period goes
// back to the queue, and the next start runs it again and completes the
// check runs it left open: no second set.
func TestPromiseStopDrainsNextStartConcludes(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		head := h.repo.heads[2]
		h.addPull(9, head, false)
		first := &stubVerify{block: head, started: make(chan string, 1)}
		h.start(first.fn)
		h.send("pull_request", "drain-1", h.pullPayload("synchronize", 9, head, false))
		h.waitStarted(first)
		h.stop()
		var open []int64
		for _, c := range h.gh.CheckRuns() {
			if c.Status != "completed" && c.Name != RunName {
				open = append(open, c.ID)
			}
		}
		if len(open) == 0 {
			t.Fatal("no open runs after the stop")
		}
		second := &stubVerify{}
		h.start(second.fn)
		h.waitFor("the run after the restart", func() bool { return h.idle() && second.calls.Load() == 1 && h.allDone(head, 3) })
		for _, c := range h.gh.CheckRuns() {
			for _, id := range open {
				if c.ID == id && c.Conclusion != "success" {
					t.Errorf("run %d %q left open by the stop: %s %q, want completed by the next run as success", c.ID, c.Name, c.Status, c.Conclusion)
				}
			}
		}
		for _, name := range []string{"template-verify / render", "template-verify / gate"} {
			if n := countRuns(h, name); n != 1 {
				t.Errorf("%d check runs %q on the head, want 1 (the next start completes the stopped run's)", n, name)
			}
		}
		if r := h.runsOf(head)["template-verify / gate"]; r.Conclusion != "success" {
			t.Errorf("gate after the restart: %s", r.Conclusion)
		}
	})
}

// The delivery-id memory is pruned by one periodic job, enqueued by the
// leader alone: two replicas, one prune.
func TestPromisePruneOnLeaderOnly(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.config = func(c *Config) { c.PruneEvery = time.Hour }
		// The ids a server before these left: one older than the TTL.
		h.offline(func(q queue) {
			rawExec(t, q, `INSERT INTO template_verify_deliveries (id, at) VALUES ($1, $2), ($3, $4)`,
				"old", time.Now().Add(-deliveryTTL-time.Hour).Unix(), "recent", time.Now().Add(-time.Hour).Unix())
		})
		v := &stubVerify{}
		h.start(v.fn)
		second, _ := h.replica(t, v.fn)
		h.waitFor("the prune", func() bool {
			return rawCount(t, h.srv.q, `SELECT count(*) FROM template_verify_deliveries WHERE id = 'old'`) == 0
		})
		// Both replicas had time to be leader-eligible; one prune ran.
		time.Sleep(2 * time.Second)
		if n := rawCount(t, h.srv.q, `SELECT count(*) FROM river_job WHERE kind = $1`, kindPrune); n != 1 {
			t.Fatalf("%d prune jobs, want 1 (only the leader enqueues it)", n)
		}
		if n := rawCount(t, h.srv.q, `SELECT count(*) FROM template_verify_deliveries WHERE id = 'recent'`); n != 1 {
			t.Fatalf("the recent id was pruned")
		}
		pruned := promCount(h.srv.metrics, "prune") + promCount(second.metrics, "prune")
		if pruned != 1 {
			t.Fatalf("the replicas pruned %v times, want 1", pruned)
		}
	})
}

// promCount is the count of the jobs of a kind a replica worked.
func promCount(m *Metrics, kind string) float64 {
	var b strings.Builder
	if _, err := m.WriteTo(&b); err != nil {
		return -1
	}
	var n float64
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "template_verify_jobs_total{") && strings.Contains(line, `kind="`+kind+`"`) {
			var v float64
			if _, err := fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &v); err == nil {
				n += v
			}
		}
	}
	return n
}

// Webhooks answer 503 while the database does not answer (here: a
// table lock another session holds; the admit gives up after admitWait),
// so that GitHub's redelivery brings the delivery back; the same
// delivery is accepted once the database answers.
func TestPromiseWebhook503WhenDatabaseDown(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		h.gh.SetPermission(testFull, "dev", "write")
		head := h.repo.heads[0]
		h.addPull(12, head, false)
		h.setup = func(s *server) { s.admitWait = 2 * time.Second }
		v := &stubVerify{}
		h.start(v.fn)
		release := lockDeliveries(t, h)
		body := h.pullPayload("synchronize", 12, head, false)
		if got := h.send("pull_request", "down-1", body); got != http.StatusServiceUnavailable {
			release()
			t.Fatalf("while the database does not answer: %d, want 503", got)
		}
		release()
		// GitHub's redelivery: the pool reconnects, so the first try
		// may still fail on a loaded machine.
		got := 0
		for try := 0; try < 10 && got != http.StatusAccepted; try++ {
			if try > 0 {
				time.Sleep(time.Second)
			}
			got = h.send("pull_request", "down-1", body)
		}
		if got != http.StatusAccepted {
			t.Fatalf("the redelivery: %d, want 202", got)
		}
		h.waitFor("the run", func() bool { return h.idle() && h.allDone(head, 3) })
	})
}

// lockDeliveries holds a write lock on the App's deliveries from another
// session until release.
func lockDeliveries(t *testing.T, h *harness) (release func()) {
	t.Helper()
	ctx := context.Background()
	if h.dbURL != "" {
		conn, err := pgx.Connect(ctx, h.dbURL)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE template_verify_deliveries IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		return func() { _ = tx.Rollback(ctx); _ = conn.Close(ctx) }
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.data, SQLiteFile)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	return func() {
		_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		_ = conn.Close()
		_ = db.Close()
	}
}
