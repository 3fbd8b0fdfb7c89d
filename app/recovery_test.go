package app

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githttp"
)

// execSQL runs one statement on the harness's database, with the server
// stopped: sqlite's text on SQLite, postgres's on Postgres.
func (h *harness) execSQL(sqlite, postgres string, args ...any) int64 {
	h.t.Helper()
	var n int64
	h.offline(func(q queue) {
		ctx := context.Background()
		var err error
		switch rq := q.(type) {
		case *riverQueue[*sql.Tx]:
			err = rq.ops.inTx(ctx, func(tx *sql.Tx) (err error) { n, err = rq.ops.exec(ctx, tx, sqlite, args...); return err })
		case *riverQueue[pgx.Tx]:
			err = rq.ops.inTx(ctx, func(tx pgx.Tx) (err error) { n, err = rq.ops.exec(ctx, tx, postgres, args...); return err })
		default:
			h.t.Fatalf("queue %T", q)
		}
		if err != nil {
			h.t.Fatal(err)
		}
	})
	return n
}

// leaveRunning puts the verification jobs that wait back into the state
// a killed process leaves them in: running, taken by replica ago.
func (h *harness) leaveRunning(replica string, ago time.Duration) {
	h.t.Helper()
	secs := int64(ago / time.Second)
	n := h.execSQL(
		`UPDATE river_job SET state = 'running', attempted_by = jsonb(json_array($1)), attempted_at = datetime('now', 'subsec', '-' || $2 || ' seconds')
			WHERE kind = 'template_verify_verify' AND state IN ('available', 'scheduled', 'retryable')`,
		`UPDATE river_job SET state = 'running', attempted_by = ARRAY[$1::text], attempted_at = now() - make_interval(secs => $2)
			WHERE kind = 'template_verify_verify' AND state IN ('available', 'scheduled', 'retryable')`,
		replica, secs)
	if n != 1 {
		h.t.Fatalf("%d jobs left running, want 1", n)
	}
}

// stopMidRun starts a verification of head on PR n that does not end,
// and stops the server in the middle of it.
func (h *harness) stopMidRun(n int, head, delivery string) {
	h.t.Helper()
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(n, head, false)
	first := &stubVerify{block: head, started: make(chan string, 1)}
	h.start(first.fn)
	h.send("pull_request", delivery, h.pullPayload("synchronize", n, head, false))
	h.waitStarted(first)
	h.stop()
}

// checkOneSet fails t unless head has one completed run of each of
// names, all passed.
func checkOneSet(t *testing.T, h *harness, head string, names ...string) {
	t.Helper()
	runs := h.runsOf(head)
	for _, name := range names {
		if n := countRuns(h, name); n != 1 {
			t.Errorf("%d check runs %q, want 1", n, name)
		}
		if r := runs[name]; r.Conclusion != "success" {
			t.Errorf("%s: %s %q, want success", name, r.Conclusion, r.Summary)
		}
	}
}

// A process killed during a verification leaves its River job running.
// The next start on the same data folder has the same replica id and
// takes the job up at once, not after --rescue-after (1 hour), and
// completes the check runs the killed run made.
func TestRestartTakesUpItsOwnJobsAtOnce(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		head := h.repo.heads[1]
		h.stopMidRun(7, head, "own-1")
		id, err := os.ReadFile(filepath.Join(h.data, replicaFile))
		if err != nil {
			t.Fatal(err)
		}
		h.leaveRunning(strings.TrimSpace(string(id)), 0)
		second := &stubVerify{}
		h.start(second.fn)
		h.waitFor("the killed run taken up by the restart", func() bool { return second.calls.Load() == 1 && h.allDone(head, 3) })
		checkOneSet(t, h, head, RunName, "template-verify / render", "template-verify / gate")
	})
}

// A replica that died (its heartbeat stopped) leaves a running job; a
// live replica makes it available again once the dead one has not beaten
// for the deadline, and runs it.
func TestDeadReplicasJobIsRescuedByTheHeartbeat(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		head := h.repo.heads[2]
		h.stopMidRun(8, head, "dead-1")
		h.leaveRunning("gone-replica", 2*time.Minute)
		h.execSQL(`INSERT INTO template_verify_replicas (id, seen) VALUES ($1, $2)`, `INSERT INTO template_verify_replicas (id, seen) VALUES ($1, $2)`,
			"gone-replica", time.Now().Add(-2*time.Minute).Unix())
		h.setup = func(s *server) { s.beatEveryTest, s.deadAfterTest = 100*time.Millisecond, time.Second }
		second := &stubVerify{}
		h.start(second.fn)
		h.waitFor("the dead replica's run rescued", func() bool { return second.calls.Load() == 1 && h.allDone(head, 3) })
		checkOneSet(t, h, head, RunName, "template-verify / render", "template-verify / gate")
		if !strings.Contains(h.logs.String(), "replica gone-replica has not been seen") {
			t.Errorf("no log line says why the job was rescued; log:\n%s", h.logs)
		}
	})
}

// pgProxy stands between the App and Postgres on a Unix socket of its
// own, so that a test can take the database away as an outage does:
// open connections break and new ones are refused.
type pgProxy struct {
	t      *testing.T
	target string // Postgres's socket
	dir    string // the proxy's socket folder
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

// newPGProxy proxies the database of dbURL (a Unix-socket URL) and
// returns the proxy and the URL through it.
func newPGProxy(t *testing.T, dbURL string) (*pgProxy, string) {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	port := q.Get("port")
	if port == "" {
		port = "5432"
	}
	if q.Get("host") == "" {
		t.Skip("the outage proxy needs Postgres on a Unix socket (scripts/pg.sh)")
	}
	dir, err := os.MkdirTemp("", "tv-pgproxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &pgProxy{t: t, target: filepath.Join(q.Get("host"), ".s.PGSQL."+port), dir: filepath.Join(dir)}
	q.Set("host", dir)
	u.RawQuery = q.Encode()
	p.up()
	t.Cleanup(p.down)
	return p, u.String()
}

func (p *pgProxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return
	}
	path := filepath.Join(p.dir, ".s.PGSQL.5432")
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		p.t.Error(err)
		return
	}
	p.ln = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", p.target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
			go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
		}
	}()
}

// down refuses new connections and breaks the open ones.
func (p *pgProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// outageAfter is a transport that takes the database away for d once
// GitHub has answered the creation of a check run named one of names,
// once per name.
type outageAfter struct {
	base  http.RoundTripper
	proxy *pgProxy
	d     time.Duration
	mu    sync.Mutex
	names map[string]bool
	cuts  int
}

func (o *outageAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	var name string
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/check-runs") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var in struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(body, &in)
		name = in.Name
	}
	resp, err := o.base.RoundTrip(req)
	o.mu.Lock()
	cut := err == nil && o.names[name]
	if cut {
		delete(o.names, name)
		o.cuts++
	}
	o.mu.Unlock()
	if cut {
		o.proxy.down()
		time.AfterFunc(o.d, o.proxy.up)
	}
	return resp, err
}

// A Postgres outage shorter than the retry window loses no run and
// publishes no failure: the database goes away for 3 s right after the
// announcer made the App's queued run (before it stored the run's id),
// and again right after the verification made its check runs (before it
// stored theirs). Every run concludes as the verification says, once.
func TestOutageLosesNoRunAndFailsNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	proxy, dbURL := newPGProxy(t, testDatabase(t))
	h.dbURL = dbURL
	out := &outageAfter{base: http.DefaultTransport, proxy: proxy, d: 3 * time.Second,
		names: map[string]bool{RunName: true, "template-verify / render": true}}
	h.transport = out
	h.gh.SetPermission(testFull, "dev", "write")
	head := h.repo.heads[0]
	h.addPull(11, head, false)
	v := &stubVerify{}
	h.start(v.fn)
	if code := h.send("pull_request", "outage-1", h.pullPayload("synchronize", 11, head, false)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	h.waitFor("the verification through two outages", func() bool { return v.calls.Load() == 1 && h.allDone(head, 3) })
	if out.cuts != 2 {
		t.Errorf("%d outages, want 2", out.cuts)
	}
	for _, c := range h.gh.CheckRuns() {
		if c.Conclusion == "failure" {
			t.Errorf("run %s failed: %q %q", c.Name, c.Title, c.Summary)
		}
	}
	checkOneSet(t, h, head, RunName, "template-verify / render", "template-verify / gate")
}

// hangGate is a proxy in front of the fake GitHub that holds, unanswered,
// every request that completes the gate's check run while hold is set,
// and says on held when it holds the first.
type hangGate struct {
	target string
	hold   chan struct{} // closed: let requests through
	held   chan struct{}
	once   sync.Once
}

func (g *hangGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	}
	_ = json.Unmarshal(body, &in)
	if r.Method == http.MethodPatch && in.Name == "template-verify / gate" && in.Status == "completed" {
		select {
		case <-g.hold:
		default:
			g.once.Do(func() { close(g.held) })
			<-g.hold
			http.Error(w, "the App was killed", http.StatusBadGateway)
			return
		}
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, g.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// A server killed (SIGKILL) while it publishes: the check runs are
// made and the render run is completed, the gate is not. The next start
// on the same data folder publishes what the killed process stored: it
// completes the same runs, and makes no second set, no second gate and
// no second comment, and verifies nothing again.
func TestKillDuringPublishingResumes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts server processes")
	}
	for _, d := range drivers {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			var dbURL string
			if d == "postgres" {
				dbURL = testDatabase(t)
			}
			killDuringPublishing(t, dbURL)
		})
	}
}

func killDuringPublishing(t *testing.T, dbURL string) {
	k := appKey(t)
	root := t.TempDir()
	h := &harness{t: t, data: t.TempDir(), logs: &syncBuffer{}}
	h.gh = fakegithub.NewApp(t, testAppID, &k.PublicKey)
	h.repo = makeRepo(t, filepath.Join(root, testRepo))
	h.git = githttp.Start(t, root)
	h.gh.SetPermission(testFull, "dev", "write")
	head := h.repo.heads[0]
	h.addPull(21, head, false)
	gate := &hangGate{target: h.gh.URL, hold: make(chan struct{}), held: make(chan struct{})}
	front := httptest.NewServer(gate)
	t.Cleanup(front.Close)

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem")
	goFile := filepath.Join(dir, "go")
	for _, f := range []struct {
		path string
		data []byte
	}{{keyFile, keyPEM(k)}, {goFile, nil}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	plan, _ := json.Marshal(floodPlan{APIURL: front.URL, DataDir: h.data, KeyFile: keyFile, GoFile: goFile, DatabaseURL: dbURL})
	if err := os.WriteFile(filepath.Join(dir, "server.json"), plan, 0o600); err != nil {
		t.Fatal(err)
	}
	first := startFloodServer(t, dir, 1)
	h.web = &httptest.Server{URL: first.url}
	body := h.pullPayload("synchronize", 21, head, false)
	if code := h.send("pull_request", "pub-kill-1", body); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	select {
	case <-gate.held:
	case <-time.After(5 * time.Minute):
		t.Fatal("the gate's completion never came")
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	first.done <- nil
	close(gate.hold)
	if r := h.runsOf(head)["template-verify / render"]; r.Status != "completed" {
		t.Fatalf("the render run is %s when the server is killed, want completed", r.Status)
	}

	second := startFloodServer(t, dir, 2)
	waitUntil(t, 5*time.Minute, "the restarted server publishes", func() bool {
		resp, err := http.Get(second.url + "/test/idle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK && h.allDone(head, 3)
	})
	checkOneSet(t, h, head, RunName, "template-verify / render", "template-verify / gate")
	if n := len(h.gh.Comments(testFull, 21)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
	logs, _ := os.ReadFile(filepath.Join(dir, "server-2.log"))
	if strings.Contains(string(logs), "verification starts") {
		t.Error("the restarted server verified the head again")
	}
}
