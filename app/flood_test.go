package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakeclock"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githttp"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// floodServerEnv, when set to a folder, makes the test binary an App
// server for the flood test (see TestMain and runFloodServer).
const floodServerEnv = "TEMPLATE_VERIFY_FLOOD_SERVER"

// floodPlan is what the server process reads from server.json.
type floodPlan struct {
	APIURL  string `json:"api_url"`
	DataDir string `json:"data_dir"`
	KeyFile string `json:"key_file"`
	// GoFile: verifications wait until this file exists.
	GoFile string `json:"go_file"`
	// Pace is how long each verification takes once it may go.
	Pace time.Duration `json:"pace"`
	// DatabaseURL is the Postgres database; empty: SQLite in DataDir.
	DatabaseURL string `json:"database_url"`
	// RescueAfter is Config.RescueAfter: the killed server's runs are
	// taken up after it.
	RescueAfter time.Duration `json:"rescue_after"`
	// Nice is Config.Nice (0: the processes runs start are not niced).
	Nice int `json:"nice"`
	// StartedDir, when set, gets a file named by the head commit as
	// each verification starts, so a test knows the job is running on
	// this server (and not merely queued) before it kills it.
	StartedDir string `json:"started_dir"`
}

// runFloodServer is the App server process of the flood test: it serves
// on a loopback port it writes to addr, with a stub verification, until
// it is killed or gets SIGTERM. GET /test/idle answers 200 when no job
// waits or runs.
func runFloodServer(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "server.json"))
	if err != nil {
		return err
	}
	var plan floodPlan
	if err := json.Unmarshal(raw, &plan); err != nil {
		return fmt.Errorf("server.json: %w", err)
	}
	key, err := os.ReadFile(plan.KeyFile)
	if err != nil {
		return err
	}
	stub := &stubVerify{}
	verifyFn := func(ctx context.Context, in verify.Options) (*report.Report, error) {
		if plan.StartedDir != "" {
			if err := os.WriteFile(filepath.Join(plan.StartedDir, in.Head), nil, 0o600); err != nil {
				return nil, err
			}
		}
		for {
			if _, err := os.Stat(plan.GoFile); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(plan.Pace):
		}
		return stub.fn(ctx, in)
	}
	srv, err := newServer(Config{
		AppID: testAppID, PrivateKey: key, WebhookSecret: []byte(testSecret), APIURL: plan.APIURL,
		DataDir: plan.DataDir, Workers: 2, Verify: verifyFn, Checks: []string{"render"},
		DatabaseURL: plan.DatabaseURL, RescueAfter: plan.RescueAfter, PollInterval: 50 * time.Millisecond, Nice: plan.Nice,
		Clock: fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)), WriteInterval: -1,
		Log: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		return err
	}
	if err := srv.start(context.Background()); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", srv.handler())
	mux.HandleFunc("GET /test/idle", func(w http.ResponseWriter, r *http.Request) {
		n, err := srv.q.unfinished(r.Context())
		if err != nil || n > 0 {
			http.Error(w, fmt.Sprintf("jobs %d, %v", n, err), http.StatusServiceUnavailable)
			return
		}
		_, _ = fmt.Fprintln(w, "idle")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "addr.tmp")
	if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "addr")); err != nil {
		return err
	}
	hs := &http.Server{Handler: mux}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		<-sig
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return srv.shutdown(ctx)
}

// floodServer is one App server process of the flood test.
type floodServer struct {
	cmd  *exec.Cmd
	url  string
	done chan error
}

// stop sends SIGTERM, as a deployment stops serve, and waits for the
// server's exit: it drains the runs it holds (20 s at most) and stops the
// processes they started. It returns the server's exit error.
func (fs *floodServer) stop(t testing.TB) error {
	t.Helper()
	if err := fs.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-fs.done
	fs.done <- nil
	return err
}

// startFloodServer starts the test binary as an App server on dir.
func startFloodServer(t testing.TB, dir string, n int) *floodServer {
	t.Helper()
	_ = os.Remove(filepath.Join(dir, "addr"))
	logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("server-%d.log", n)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floodServerEnv+"="+dir)
	cmd.Stderr, cmd.Stdout = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fs := &floodServer{cmd: cmd, done: make(chan error, 1)}
	go func() { fs.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-fs.done
		fs.done <- nil
	})
	waitUntil(t, 20*time.Second, "the server's address", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "addr"))
		if err == nil {
			fs.url = "http://" + string(b)
		}
		return err == nil
	})
	return fs
}

// 2,000 deliveries (100 different bodies for each head of 20 pull
// requests), then kill -9 while jobs wait and run, then a restart: every
// head ends with exactly one job (one App check run, made when its job is
// queued, concluded success) and one comment (issue 14.14).
// On both drivers; the killed server's runs are rescued by River (after
// RescueAfter, at the leader's next rescue pass).
func TestFloodThenKillRunsEachHeadOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts server processes")
	}
	for _, d := range drivers {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			var url string
			if d == "postgres" {
				url = testDatabase(t)
			}
			floodThenKill(t, url)
		})
	}
}

func floodThenKill(t *testing.T, dbURL string) {
	const prs, perHead = 20, 100
	k := appKey(t)
	root := t.TempDir()
	h := &harness{t: t, data: t.TempDir(), logs: &syncBuffer{}}
	h.gh = fakegithub.NewApp(t, testAppID, &k.PublicKey)
	h.repo = makeRepo(t, filepath.Join(root, testRepo))
	addHeads(t, &h.repo, prs)
	h.git = githttp.Start(t, root)
	h.gh.SetPermission(testFull, "dev", "write")
	for i := 0; i < prs; i++ {
		h.addPull(100+i, h.repo.heads[i], false)
	}

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem")
	goFile := filepath.Join(dir, "go")
	if err := os.WriteFile(keyFile, keyPEM(k), 0o600); err != nil {
		t.Fatal(err)
	}
	// RescueAfter is also River's job timeout. The first server's jobs
	// wait for the go file through the whole flood, which took over 90 s
	// beside a second test run (load 22): its limit is far away. The
	// second server, started after the kill, is the leader that rescues
	// the killed server's runs: its rescue time is short.
	floodPlanFor := func(rescueAfter time.Duration) []byte {
		plan, _ := json.Marshal(floodPlan{APIURL: h.gh.URL, DataDir: h.data, KeyFile: keyFile, GoFile: goFile, Pace: 100 * time.Millisecond,
			DatabaseURL: dbURL, RescueAfter: rescueAfter})
		return plan
	}
	if err := os.WriteFile(filepath.Join(dir, "server.json"), floodPlanFor(10*time.Minute), 0o600); err != nil {
		t.Fatal(err)
	}

	type delivery struct {
		id   string
		body []byte
	}
	var all []delivery
	actions := []string{"opened", "synchronize", "reopened", "ready_for_review"}
	// One real payload per action and pull request, built once (building
	// 2,000 from the fixture took 10 s under -race); every body differs by
	// a last field flood_seq.
	payloads := map[string][]byte{}
	for k := 0; k < perHead; k++ {
		for i := 0; i < prs; i++ {
			action := actions[k%len(actions)]
			key := fmt.Sprint(action, i)
			if payloads[key] == nil {
				payloads[key] = bytes.TrimSpace(h.pullPayload(action, 100+i, h.repo.heads[i], false))
			}
			base := payloads[key]
			body := fmt.Appendf(slices.Clip(base[:len(base)-1]), `,"flood_seq":%d}`, k)
			all = append(all, delivery{id: testDeliveryID(fmt.Sprintf("flood-%d-%d", i, k)), body: body})
		}
	}
	if !json.Valid(all[len(all)-1].body) {
		t.Fatalf("a flood body is not JSON: %.200s", all[len(all)-1].body)
	}

	first := startFloodServer(t, dir, 1)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 30 * time.Second}
	var next, redelivered atomic.Int64
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(all) {
					return
				}
				// A 503 (the queue's database did not answer in time; on
				// SQLite one in 2,000 was seen) is delivered again with the
				// same delivery id, as a redelivery does; the answer that
				// counts is the last one.
				code := 0
				for try := 0; try < 5 && (try == 0 || code == http.StatusServiceUnavailable); try++ {
					if try > 0 {
						redelivered.Add(1)
					}
					req, _ := http.NewRequest(http.MethodPost, first.url+"/webhook", bytes.NewReader(all[i].body))
					req.Header.Set("X-GitHub-Event", "pull_request")
					req.Header.Set("X-GitHub-Delivery", all[i].id)
					req.Header.Set(SignatureHeader, Sign([]byte(testSecret), all[i].body))
					code = 0
					if resp, err := client.Do(req); err == nil {
						code = resp.StatusCode
						resp.Body.Close()
					}
				}
				mu.Lock()
				statuses[code]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if statuses[http.StatusAccepted]+statuses[http.StatusOK] != len(all) {
		t.Fatalf("answers to %d deliveries: %v", len(all), statuses)
	}
	t.Logf("answers to %d deliveries: %v (%d redelivered after a 503)", len(all), statuses, redelivered.Load())

	// Let the verifications go; kill -9 once three heads are done.
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "three finished heads", func() bool { return countCompleted(h, RunName) >= 3 })
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	first.done <- nil
	doneAtKill := countCompleted(h, RunName)
	t.Logf("killed with %d of %d heads finished", doneAtKill, prs)
	if doneAtKill >= prs {
		t.Fatalf("every head finished before the kill; the test proves nothing")
	}

	if err := os.WriteFile(filepath.Join(dir, "server.json"), floodPlanFor(90*time.Second), 0o600); err != nil {
		t.Fatal(err)
	}
	second := startFloodServer(t, dir, 2)
	// River's leader rescues the killed server's runs every 30 s, once
	// they ran RescueAfter; the new server must first become the leader.
	waitUntil(t, 5*time.Minute, "every head finished and the server idle", func() bool {
		if countCompleted(h, RunName) < prs {
			return false
		}
		resp, err := http.Get(second.url + "/test/idle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if err := second.stop(t); err != nil {
		t.Errorf("the second server: %v", err)
	}

	appRuns, renders := map[string]int{}, map[string]int{}
	for _, c := range h.gh.CheckRuns() {
		switch {
		case c.Name == RunName:
			appRuns[c.HeadSHA]++
			if c.Status != "completed" || c.Conclusion != "success" {
				t.Errorf("head %s: App run %d is %s %s", short(c.HeadSHA), c.ID, c.Status, c.Conclusion)
			}
		case c.Name == "template-verify / render" && c.Conclusion == "success":
			renders[c.HeadSHA]++
		case c.Status != "completed":
			t.Errorf("head %s: run %q is still %s", short(c.HeadSHA), c.Name, c.Status)
		}
	}
	var bad []string
	for i, sha := range h.repo.heads[:prs] {
		cs := h.gh.Comments(testFull, 100+i)
		if appRuns[sha] != 1 || renders[sha] < 1 || len(cs) != 1 {
			bad = append(bad, fmt.Sprintf("#%d: %d App runs, %d successful renders, %d comments", 100+i, appRuns[sha], renders[sha], len(cs)))
		}
		if renders[sha] > 1 {
			// One job, verified again after the kill: the kill came after
			// its per-check runs were published and before the job was
			// done (see the report of issue 14.14).
			t.Logf("#%d: one job, %d successful render runs (killed while publishing)", 100+i, renders[sha])
		}
	}
	if len(bad) > 0 || t.Failed() {
		for n := 1; n <= 2; n++ {
			b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("server-%d.log", n)))
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
					t.Logf("server %d: %.400s", n, line)
				}
			}
		}
		t.Fatalf("heads that did not run exactly once:\n%s", strings.Join(bad, "\n"))
	}
}
