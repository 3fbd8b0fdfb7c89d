package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakeclock"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githttp"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

const (
	testAppID   = 4242
	testInst    = 77
	testOwner   = "octo"
	testRepo    = "hello"
	testFull    = testOwner + "/" + testRepo
	testSecret  = "It's a Secret to Everybody"
	fixturesDir = "testdata/github-webhooks"
)

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
)

// appKey is the test App's RSA key, made once per test binary.
func appKey(t testing.TB) *rsa.PrivateKey {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		testKey = k
	})
	return testKey
}

func keyPEM(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixtureRepo is a small repository with a base and heads h1..h3.
type fixtureRepo struct {
	dir   string
	base  string
	heads []string
}

func makeRepo(t testing.TB, dir string) fixtureRepo {
	t.Helper()
	ctx := context.Background()
	r := gitx.Repo{Dir: dir}
	run := func(args ...string) {
		if _, err := r.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	write("templates/a/test.sh", "echo base\n")
	run("add", "-A")
	run("commit", "-q", "-m", "base")
	base, _ := r.Resolve(ctx, "HEAD")
	fr := fixtureRepo{dir: dir, base: base}
	for i := 1; i <= 3; i++ {
		write("templates/a/test.sh", fmt.Sprintf("echo head %d\n", i))
		run("add", "-A")
		run("commit", "-q", "-m", fmt.Sprintf("head %d", i))
		sha, _ := r.Resolve(ctx, "HEAD")
		fr.heads = append(fr.heads, sha)
	}
	return fr
}

// addHeads appends commits to the fixture's main branch, each changing
// the template, until it has n heads, in one git fast-import.
func addHeads(t testing.TB, fr *fixtureRepo, n int) {
	t.Helper()
	var stream strings.Builder
	for i := len(fr.heads); i < n; i++ {
		msg, content := fmt.Sprintf("head %d\n", i+1), fmt.Sprintf("echo head %d\n", i+1)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata %d\n%s", 1700000000+i, len(msg), msg)
		if i == len(fr.heads) {
			fmt.Fprintf(&stream, "from %s\n", fr.heads[i-1])
		}
		fmt.Fprintf(&stream, "M 100644 inline templates/a/test.sh\ndata %d\n%s\n", len(content), content)
	}
	ctx := context.Background()
	r := gitx.Repo{Dir: fr.dir}
	if _, err := r.RunInput(ctx, strings.NewReader(stream.String()), "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(ctx, "rev-list", "--reverse", fr.base+"..main")
	if err != nil {
		t.Fatal(err)
	}
	fr.heads = strings.Fields(string(out))
	if len(fr.heads) != n {
		t.Fatalf("the fixture has %d heads after fast-import, want %d", len(fr.heads), n)
	}
}

// stubVerify is a fast verification: it checks that the clone has the
// head, and reports one passing render check.
type stubVerify struct {
	calls atomic.Int32
	// block, when set, makes a run of this head wait until its context
	// ends; started gets the head when a run starts.
	block   string
	started chan string
	mu      sync.Mutex
	envs    [][]string
	// cacheDirs are the verifications' Options.CacheDir, in order.
	cacheDirs []string
	// cacheFile, when set, is an entry (a path in the cache folder) that
	// each verification looks for and writes when it is not there, as a
	// check that keeps a result does; cacheHad says, in order, whether
	// it was there.
	cacheFile string
	cacheHad  []bool
}

func (v *stubVerify) fn(ctx context.Context, in verify.Options) (*report.Report, error) {
	v.calls.Add(1)
	if v.started != nil {
		v.started <- in.Head
	}
	v.mu.Lock()
	v.envs = append(v.envs, os.Environ())
	v.cacheDirs = append(v.cacheDirs, in.CacheDir)
	if v.cacheFile != "" && in.CacheDir != "" {
		file := filepath.Join(in.CacheDir, v.cacheFile)
		data, err := os.ReadFile(file)
		v.cacheHad = append(v.cacheHad, err == nil && string(data) == `{"kept":true}`)
		if err != nil {
			_ = os.MkdirAll(filepath.Dir(file), 0o755)
			_ = os.WriteFile(file, []byte(`{"kept":true}`), 0o644)
		}
	}
	v.mu.Unlock()
	if in.Head == v.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	data, ok, err := gitx.Repo{Dir: in.RepoDir}.ReadFile(ctx, in.Head, "templates/a/test.sh")
	if err != nil || !ok {
		return nil, fmt.Errorf("the clone lacks the head: %v", err)
	}
	return &report.Report{
		Repo: in.RepoName, Base: in.Base, Head: in.Head, BaseRev: in.Base, HeadRev: in.Head,
		Command: "template-verify run --repo . --base " + in.Base + " --head " + in.Head,
		// A change to a template: the App comments on it (comment mode changes).
		Templates: []plan.Template{{Group: "tests", Path: "templates/a/test.sh", OldPath: "templates/a/test.sh", Status: plan.Modified}},
		Results:   []checks.Result{{Check: "render", Conclusion: checks.Success, Title: "Rendered 1 template", Summary: "test.sh: " + strings.TrimSpace(string(data))}},
		Overall:   checks.Success, ConfigSource: report.DefaultsSource,
	}, nil
}

type harness struct {
	t      testing.TB
	gh     *fakegithub.AppServer
	git    *githttp.Server
	repo   fixtureRepo
	data   string
	clock  *fakeclock.Clock
	logs   *syncBuffer
	srv    *server
	web    *httptest.Server
	checks []string
	grace  time.Duration
	nice   int // Config.Nice; serve's default unless a test sets it
	base   int // requests to GitHub before the last start
	// setup, when set, changes the server before it starts.
	setup func(*server)
	// transport, when set, is the base transport of API calls.
	transport http.RoundTripper
	// dbURL is the Postgres database of the test; empty: SQLite in data.
	dbURL string
	// config, when set, changes the configuration before newServer.
	config func(*Config)
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	k := appKey(t)
	h := &harness{t: t, data: t.TempDir(), clock: fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)), logs: &syncBuffer{}, checks: []string{"render"}, nice: DefaultNice}
	h.gh = fakegithub.NewApp(t, testAppID, &k.PublicKey)
	// Only known tokens and the installation tokens the fake makes work.
	h.gh.AddToken("unused-admin-token", fakegithub.Token{Login: "admin"})
	root := t.TempDir()
	h.repo = makeRepo(t, filepath.Join(root, testRepo))
	h.git = githttp.Start(t, root)
	return h
}

// start starts a server on the harness's data folder.
func (h *harness) start(v VerifyFunc) {
	h.t.Helper()
	cfg := Config{
		AppID: testAppID, PrivateKey: keyPEM(appKey(h.t)), WebhookSecret: []byte(testSecret),
		APIURL: h.gh.URL, DataDir: h.data, Workers: 2, Verify: v, Checks: h.checks,
		Clock: h.clock, WriteInterval: -1, ShutdownGrace: h.grace, Nice: h.nice, AllowUnsandboxed: true,
		HTTPTransport: h.transport, DatabaseURL: h.dbURL, PollInterval: 50 * time.Millisecond,
		Log: slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if h.config != nil {
		h.config(&cfg)
	}
	srv, err := newServer(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	if h.setup != nil {
		h.setup(srv)
	}
	if err := srv.start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.srv = srv
	h.base = len(h.gh.Requests())
	h.web = httptest.NewServer(srv.handler())
	h.t.Cleanup(h.stop)
}

// stop stops the server; a second call does nothing.
func (h *harness) stop() {
	if h.srv == nil {
		return
	}
	h.web.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.srv.shutdown(ctx); err != nil {
		h.t.Errorf("shutdown: %v", err)
	}
	h.srv = nil
}

// send posts a signed delivery and returns the status.
func (h *harness) send(event, delivery string, body []byte) int {
	h.t.Helper()
	return h.sendSigned(event, delivery, body, Sign([]byte(testSecret), body))
}

func (h *harness) sendSigned(event, delivery string, body []byte, sig string) int {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.web.URL+"/webhook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", testDeliveryID(delivery))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(SignatureHeader, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// fixture reads a shared payload as a generic JSON object.
func fixture(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func obj(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

// rewriteRepo points a payload at the fixture repository and installation.
func (h *harness) rewriteRepo(p map[string]any) {
	repo := obj(p, "repository")
	repo["full_name"], repo["name"], repo["clone_url"] = testFull, testRepo, h.git.URL+"/"+testRepo
	obj(repo, "owner")["login"] = testOwner
	p["installation"] = map[string]any{"id": testInst}
}

// pullPayload is the shared synchronize payload rewritten to the fixture
// repository, pull request number and head.
func (h *harness) pullPayload(action string, number int, head string, fork bool) []byte {
	p := fixture(h.t, "pull_request/synchronize.payload.json")
	h.rewriteRepo(p)
	p["action"], p["number"] = action, number
	pr := obj(p, "pull_request")
	pr["number"] = number
	obj(pr, "head")["sha"] = head
	obj(pr, "base")["sha"], obj(pr, "base")["ref"] = h.repo.base, "main"
	headRepo := obj(pr, "head", "repo")
	headRepo["full_name"], headRepo["fork"] = testFull, false
	if fork {
		headRepo["full_name"], headRepo["fork"] = "forker/hello", true
	}
	obj(pr, "base", "repo")["full_name"] = testFull
	obj(pr, "user")["login"] = "dev"
	b, _ := json.Marshal(p)
	return b
}

// commentPayload is an issue_comment on pull request number.
func (h *harness) commentPayload(number int, login, body string) []byte {
	p := fixture(h.t, "issue_comment/created.with-installation.payload.json")
	h.rewriteRepo(p)
	issue := obj(p, "issue")
	issue["number"] = number
	issue["pull_request"] = map[string]any{"url": "x"}
	c := obj(p, "comment")
	c["body"] = body
	obj(c, "user")["login"] = login
	obj(p, "sender")["login"] = login
	b, _ := json.Marshal(p)
	return b
}

// waitFor polls cond for up to 5 min; on a timeout the test fails with
// what the harness saw (h.seen). The 5 min are a safety net for a
// condition that never comes, not a speed limit: beside a second test run
// (load 35) a stored publish took longer than the 60 s this once had.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	waitUntil(h.t, 5*time.Minute, what, cond, h.seen)
}

// waitStarted waits for a stubbed verification to start; after 60 s the
// test fails with what it saw and the App's log, not a hang.
func (h *harness) waitStarted(v *stubVerify) {
	h.t.Helper()
	select {
	case <-v.started:
	case <-time.After(60 * time.Second):
		h.t.Fatalf("timed out after 60s waiting for the verification to start; saw:\n%s\nlog:\n%s", h.seen(), h.logs)
	}
}

// waitUntil polls cond every 10 ms for up to d. On a timeout the test
// fails with the outputs of show: what the test saw instead.
func waitUntil(t testing.TB, d time.Duration, what string, cond func() bool, show ...func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			var saw []string
			for _, f := range show {
				saw = append(saw, f())
			}
			t.Fatalf("timed out after %v waiting for %s; saw:\n%s", d, what, strings.Join(saw, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// asked reports whether a request to GitHub had a path that ends with
// suffix.
func (h *harness) asked(suffix string) bool {
	for _, r := range h.gh.Requests() {
		if strings.HasSuffix(r.Path, suffix) {
			return true
		}
	}
	return false
}

// seen is what the harness sees: the check runs, the stored jobs and the
// last requests to GitHub.
func (h *harness) seen() string {
	var b strings.Builder
	for _, c := range h.gh.CheckRuns() {
		fmt.Fprintf(&b, "run %d %s on %.7s: %s %s\n", c.ID, c.Name, c.HeadSHA, c.Status, c.Conclusion)
	}
	if h.srv != nil {
		n, err := h.srv.q.unfinished(context.Background())
		fmt.Fprintf(&b, "%d jobs wait or run (%v)\n", n, err)
	}
	reqs := h.gh.Requests()
	for _, r := range reqs[max(0, len(reqs)-10):] {
		fmt.Fprintf(&b, "%s %s -> %d\n", r.Method, r.Path, r.Status)
	}
	return b.String()
}

// runsOf returns the check runs on sha by name (the last run of a name).
func (h *harness) runsOf(sha string) map[string]fakegithub.CheckRun {
	out := map[string]fakegithub.CheckRun{}
	for _, c := range h.gh.CheckRuns() {
		if c.HeadSHA == sha {
			out[c.Name] = c
		}
	}
	return out
}

// allDone reports whether every run on sha is completed and the App's
// run is there.
func (h *harness) allDone(sha string, n int) bool {
	runs := h.runsOf(sha)
	if len(runs) < n {
		return false
	}
	for _, c := range runs {
		if c.Status != "completed" {
			return false
		}
	}
	return true
}

// idle reports whether no announce or verify job waits or runs.
func (h *harness) idle() bool {
	n, err := h.srv.q.unfinished(context.Background())
	return err == nil && n == 0
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// offline opens the harness's database with a server that does not
// start (as a stopped or killed process leaves it), runs fn on its queue
// and closes it.
func (h *harness) offline(fn func(q queue)) {
	h.t.Helper()
	cfg := Config{
		AppID: testAppID, PrivateKey: keyPEM(appKey(h.t)), WebhookSecret: []byte(testSecret),
		APIURL: h.gh.URL, DataDir: h.data, DatabaseURL: h.dbURL, AppSlug: "x", AllowUnsandboxed: true, Verify: (&stubVerify{}).fn,
	}
	srv, err := newServer(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	defer srv.closeQueue()
	if err := srv.q.migrate(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	fn(srv.q)
}

// plant stores j as a verification job that a killed process ran: its
// River job waits, its state says running.
func (h *harness) plant(j *Job) {
	h.t.Helper()
	h.offline(func(q queue) {
		ctx := context.Background()
		id, _, err := q.enqueueVerify(ctx, j)
		if err != nil {
			h.t.Fatal(err)
		}
		j.RiverID = id
		if err := q.saveState(ctx, j); err != nil {
			h.t.Fatal(err)
		}
		if err := q.release(ctx, id); err != nil {
			h.t.Fatal(err)
		}
	})
}

// editState changes the stored state of a delivery's job.
func (h *harness) editState(delivery string, fn func(*Job)) {
	h.t.Helper()
	h.offline(func(q queue) {
		ctx := context.Background()
		j, ok, err := q.loadState(ctx, testDeliveryID(delivery))
		if err != nil || !ok {
			h.t.Fatalf("the state of %s: %v %v", delivery, ok, err)
		}
		fn(j)
		if err := q.saveState(ctx, j); err != nil {
			h.t.Fatal(err)
		}
	})
}
