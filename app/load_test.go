package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githttp"
	"github.com/formula-code/template-verify/internal/nice"
)

// loadSenderEnv, when set to a folder, makes the test binary the load
// sender instead of running tests (see TestMain).
const loadSenderEnv = "TEMPLATE_VERIFY_LOAD_SENDER"

// TestMain lets the load benchmark start this test binary as a separate
// sender process, so that the sender's goroutines and garbage do not
// share the Go scheduler with the server whose answers it times (GitHub's
// sender is not in the App's process either).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runTestChild())
	}
	if dir := os.Getenv(floodServerEnv); dir != "" {
		if err := runFloodServer(dir); err != nil {
			fmt.Fprintln(os.Stderr, "flood server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(loadSenderEnv); dir != "" {
		if err := runLoadSender(dir, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "load sender:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// loadPlan is what the sender reads from plan.json in its folder; the
// bodies are body-N.json beside it.
type loadPlan struct {
	URL      string        `json:"url"`
	Secret   string        `json:"secret"`
	Count    int           `json:"count"`
	Burst    int           `json:"burst"`
	Every    time.Duration `json:"every"`
	BadEvery int           `json:"bad_every"` // every n-th delivery has a bad signature
	Round    int           `json:"round"`
}

// loadAnswers is what the sender prints.
type loadAnswers struct {
	Accepted, Rejected, Other int
	Times                     []time.Duration
	Sent                      time.Duration
}

// readAnswers reads what the sender printed, sorts the times and checks
// that of total deliveries nine in ten were accepted and the others, with
// a bad signature, rejected.
func readAnswers(b *testing.B, out []byte, total int) loadAnswers {
	var res loadAnswers
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("load sender printed %q: %v", out, err)
	}
	slices.Sort(res.Times)
	if res.Accepted != total*9/10 || res.Rejected != total/10 || res.Other != 0 || len(res.Times) != total {
		b.Fatalf("accepted %d, rejected %d, other %d, answers %d", res.Accepted, res.Rejected, res.Other, len(res.Times))
	}
	b.Logf("answers: accepted %d, rejected %d, p50 %v, p99 %v, max %v, sent in %v", res.Accepted, res.Rejected,
		percentile(res.Times, 0.50), percentile(res.Times, 0.99), res.Times[len(res.Times)-1], res.Sent)
	return res
}

// reportAnswers reports the answers' metrics alone: the counts, p50,
// p99 and the rate they were sent at.
func (res loadAnswers) reportAnswers(b *testing.B) {
	b.ReportMetric(float64(res.Accepted), "accepted")
	b.ReportMetric(float64(res.Rejected), "rejected")
	b.ReportMetric(float64(percentile(res.Times, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(res.Times, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(res.Times))/res.Sent.Seconds(), "deliveries/s")
}

// report reports the benchmark's metrics, drain being the time until
// every accepted delivery's run was concluded.
func (res loadAnswers) report(b *testing.B, drain time.Duration) {
	p50, p99 := percentile(res.Times, 0.50), percentile(res.Times, 0.99)
	total := len(res.Times)
	res.reportAnswers(b)
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.Logf("accepted %d, rejected %d, lost 0, p50 %v, p99 %v, max %v, sent in %v, all %d runs done after %v",
		res.Accepted, res.Rejected, p50, p99, res.Times[total-1], res.Sent, res.Accepted, drain)
}

// runLoadSender posts the planned deliveries in bursts and prints the
// status counts and the time to each answer as JSON.
func runLoadSender(dir string, out *os.File) error {
	raw, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		return err
	}
	var plan loadPlan
	if err := json.Unmarshal(raw, &plan); err != nil {
		return fmt.Errorf("plan.json: %w", err)
	}
	bodies := make([][]byte, plan.Count)
	sigs := make([]string, plan.Count)
	for i := range bodies {
		if bodies[i], err = os.ReadFile(filepath.Join(dir, fmt.Sprintf("body-%d.json", i))); err != nil {
			return err
		}
		key := plan.Secret
		if plan.BadEvery > 0 && i%plan.BadEvery == plan.BadEvery-1 {
			key = "wrong"
		}
		sigs[i] = Sign([]byte(key), bodies[i])
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: plan.Burst}, Timeout: time.Minute}
	var mu sync.Mutex
	var res loadAnswers
	start := time.Now()
	// Open loop: each burst leaves at its time, whether or not the
	// answers to the one before have come, as GitHub sends; a sender that
	// waited would send less when the server is slow and hide it.
	var wg sync.WaitGroup
	for k := 0; k*plan.Burst < plan.Count; k++ {
		time.Sleep(time.Until(start.Add(time.Duration(k) * plan.Every)))
		for i := k * plan.Burst; i < min((k+1)*plan.Burst, plan.Count); i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				req, _ := http.NewRequest(http.MethodPost, plan.URL, bytes.NewReader(bodies[i]))
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-GitHub-Delivery", testDeliveryID(fmt.Sprintf("load-%d-%d", plan.Round, i)))
				req.Header.Set(SignatureHeader, sigs[i])
				t0 := time.Now()
				resp, err := client.Do(req)
				d := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				res.Times = append(res.Times, d)
				switch {
				case err != nil:
					res.Other++
				case resp.StatusCode == http.StatusAccepted:
					res.Accepted++
				case resp.StatusCode == http.StatusBadRequest:
					res.Rejected++
				default:
					res.Other++
				}
				if resp != nil {
					resp.Body.Close()
				}
			}(i)
		}
	}
	wg.Wait()
	res.Sent = time.Since(start)
	return json.NewEncoder(out).Encode(res)
}

// BenchmarkWebhookLoad sends 500 signed pull_request deliveries in 10
// bursts of 50, one burst every 250 ms (200 a second), to the server on
// loopback, with the fake GitHub and the git server behind it. The sender
// is a separate process. One in ten has a bad signature and must be
// rejected. It reports accepted, rejected, p50 and p99 time to answer,
// then waits until every accepted delivery has its completed
// "template-verify" check run: none lost.
//
// The server's workers clone each pull request from the git server while
// the bursts arrive, so the answers compete for the CPU with git on both
// sides. The git server stands in for GitHub's, which is not on the App's
// machine. The cases:
//
//   - github-nice-0: the git server at the test's priority, the App's
//     processes at serve's default nice level (DefaultNice);
//
//   - github-nice-19: the git server at nice 19, nearer to a deployment;
//
//   - github-nice-19/app-nice-off: the same with the App's processes not
//     niced;
//
//   - busy/app-nice-10 and busy/app-nice-off: as github-nice-19, with two
//     CPU-bound processes started the way verifications start theirs
//     (nice.Start), standing in for two verifications running pytest.
//
//     go test -run XXX -bench WebhookLoad -benchtime 1x ./app
func BenchmarkWebhookLoad(b *testing.B) {
	cases := []struct {
		name             string
		githubNice, nice int
		busy             int
	}{
		{"github-nice-0", 0, DefaultNice, 0},
		{"github-nice-19", 19, DefaultNice, 0},
		{"github-nice-19/app-nice-off", 19, 0, 0},
		{"busy/app-nice-10", 19, DefaultNice, 2},
		{"busy/app-nice-off", 19, 0, 2},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				loadOnce(b, i, c.githubNice, c.nice, c.busy, "")
			}
		})
	}
}

// burnCPU starts n CPU-bound processes through nice.Start and returns a
// function that kills them.
func burnCPU(b *testing.B, n int) func() {
	var cmds []*exec.Cmd
	for i := 0; i < n; i++ {
		cmd := exec.Command("bash", "-c", "while :; do :; done")
		if err := nice.Start(cmd); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, c := range cmds {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
		})
	}
}

// ackShapes are two ways 200 deliveries a second arrive: evenly, one
// every 5 ms, and in bursts of 50 every 250 ms (as BenchmarkWebhookLoad),
// where the last of a burst waits for the 49 before it.
var ackShapes = []struct {
	name  string
	burst int
	every time.Duration
}{
	{"steady", 1, 5 * time.Millisecond},
	{"burst50", 50, 250 * time.Millisecond},
}

// BenchmarkWebhookAck is the webhook answer at 200 deliveries/s, steady
// and in bursts, on each queue driver: SQLite, and Postgres from
// TEMPLATE_VERIFY_TEST_DATABASE_URL. The App is a process of its own (the
// flood test's server), as serve is; the benchmark's process holds the
// fake GitHub and the git server, which stand in for GitHub's servers,
// and lowers itself to nice 19 while the deliveries are sent (the git
// server's processes are at nice 19 already): GitHub's servers do not
// take the App machine's CPU. BenchmarkWebhookLoad has the App in the
// test's process.
//
//	scripts/pg.sh run go test -run XXX -bench WebhookAck -benchtime 1x ./app
func BenchmarkWebhookAck(b *testing.B) {
	for _, d := range drivers {
		for _, shape := range ackShapes {
			b.Run(d+"/"+shape.name, func(b *testing.B) {
				var url string
				if d == "postgres" {
					url = testDatabase(b)
				}
				for i := 0; i < b.N; i++ {
					loadApart(b, i, url, shape.burst, shape.every)
				}
			})
		}
	}
}

// autogroupState is Linux's kernel.sched_autogroup_enabled: "1" when
// each session is a CPU group of its own (in the root cgroup), "0", or
// why it is not known.
func autogroupState() string {
	raw, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if err != nil {
		return "not known (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(raw))
}

// cpuCgroup is the CPU cgroup of this process as /proc/self/cgroup names
// it (cgroup v1's "cpu" controller, else the v2 group): "/" is the root,
// where autogroup applies. Inside a cgroup namespace a container's own
// group reads "/" too.
func cpuCgroup() string {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "not known (" + err.Error() + ")"
	}
	return cpuCgroupOf(string(raw))
}

// cpuCgroupOf reads the CPU cgroup from the text of /proc/PID/cgroup.
func cpuCgroupOf(procCgroup string) string {
	v2 := "not known (no cpu line in /proc/self/cgroup)"
	for _, line := range strings.Split(strings.TrimSpace(procCgroup), "\n") {
		id, rest, _ := strings.Cut(line, ":")
		controllers, path, _ := strings.Cut(rest, ":")
		if id == "0" && controllers == "" {
			v2 = path + " (v2)"
			continue
		}
		if slices.Contains(strings.Split(controllers, ","), "cpu") {
			return path
		}
	}
	return v2
}

// The benchmark's label of where it ran: v1's cpu controller (alone or
// beside cpuacct) wins over the v2 line; a pure v2 host gives its group.
func TestCPUCgroupOf(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"9:name=systemd:/\n2:cpuacct:/\n1:cpu:/template-verify-bench-7\n0::/\n", "/template-verify-bench-7"},
		{"4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n0::/\n", "/docker/abc"},
		{"2:cpuacct:/x\n1:cpuset:/y\n", "not known (no cpu line in /proc/self/cgroup)"},
		{"0::/user.slice/session-3.scope\n", "/user.slice/session-3.scope (v2)"},
	} {
		if got := cpuCgroupOf(c.in); got != c.want {
			t.Errorf("cpuCgroupOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// niceSelf sets the nice level of every thread of this process (Linux
// keeps one per thread; a thread started later takes its creator's). It
// returns what it could not do: lowering the level again takes root.
func niceSelf(level int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, level); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("nice %d of thread %d: %w", level, tid, err)
		}
	}
	return nil
}

// writeLoadBodies adds n pull requests to the fake GitHub, each on a
// head of its own, and writes a synchronize delivery of each into dir as
// body-I.json, for the sender. Pull requests do not share heads: a check
// run's pull_requests lists every open pull request on its head, and with
// hundreds on one head each answer of the fake GitHub to the App grew to
// hundreds of pull requests (the App's announcers then decoded about
// 100 MB a second of them).
func writeLoadBodies(b *testing.B, h *harness, dir string, n int) {
	if len(h.repo.heads) < n {
		addHeads(b, &h.repo, n)
	}
	for i := 0; i < n; i++ {
		pr := 1000 + i
		h.addPull(pr, h.repo.heads[i], false)
		body := h.pullPayload("synchronize", pr, h.repo.heads[i], false)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("body-%d.json", i)), body, 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

// ackCountFlag and ackOnlyFlag shape BenchmarkWebhookAck for comparing
// builds: the p99 of 500 answers is their sixth-slowest and moves by tens
// of milliseconds from run to run, so a comparison wants more answers a
// run and more runs, and not the drain of every run after each:
//
//	go test -run XXX -bench WebhookAck/postgres/steady -benchtime 1x ./app -args -ackcount 2000 -ackonly
var (
	ackCountFlag = flag.Int("ackcount", 500, "deliveries BenchmarkWebhookAck sends (a multiple of 10)")
	ackOnlyFlag  = flag.Bool("ackonly", false, "BenchmarkWebhookAck reports the answers and stops the App (SIGTERM) without waiting for every run to conclude")
)

// loadApart is loadShaped with the App in a process of its own.
func loadApart(b *testing.B, round int, dbURL string, burst int, every time.Duration) {
	total := *ackCountFlag
	if total <= 0 || total%10 != 0 {
		b.Fatalf("-ackcount %d: want a positive multiple of 10 (one in ten deliveries has a bad signature)", total)
	}
	k := appKey(b)
	root := b.TempDir()
	h := &harness{t: b, data: b.TempDir(), logs: &syncBuffer{}}
	h.gh = fakegithub.NewApp(b, testAppID, &k.PublicKey)
	h.repo = makeRepo(b, filepath.Join(root, testRepo))
	h.git = githttp.Start(b, root)
	h.git.SetNice(19)
	h.gh.SetPermission(testFull, "dev", "write")
	dir := b.TempDir()
	writeLoadBodies(b, h, dir, total)
	keyFile, goFile := filepath.Join(dir, "key.pem"), filepath.Join(dir, "go")
	for name, data := range map[string][]byte{keyFile: keyPEM(k), goFile: nil} {
		if err := os.WriteFile(name, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	serverPlan, _ := json.Marshal(floodPlan{APIURL: h.gh.URL, DataDir: h.data, KeyFile: keyFile, GoFile: goFile,
		DatabaseURL: dbURL, RescueAfter: 10 * time.Minute, Nice: DefaultNice})
	if err := os.WriteFile(filepath.Join(dir, "server.json"), serverPlan, 0o600); err != nil {
		b.Fatal(err)
	}
	app := startFloodServer(b, dir, round)
	plan, _ := json.Marshal(loadPlan{URL: app.url + "/webhook", Secret: testSecret, Count: total, Burst: burst,
		Every: every, BadEvery: 10, Round: round})
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), plan, 0o600); err != nil {
		b.Fatal(err)
	}
	sender := exec.Command(os.Args[0])
	sender.Env = append(os.Environ(), loadSenderEnv+"="+dir)
	sender.Stderr = os.Stderr
	var out bytes.Buffer
	sender.Stdout = &out
	b.ResetTimer()
	start := time.Now()
	if err := sender.Start(); err != nil {
		b.Fatal(err)
	}
	// The sender and the App were started at this process's level.
	if err := niceSelf(19); err != nil {
		b.Fatalf("lower the fake GitHub's priority: %v", err)
	}
	err := sender.Wait()
	b.StopTimer()
	if err := niceSelf(0); err != nil {
		b.Logf("the drain runs with the fake GitHub at nice 19: %v", err)
	}
	if err != nil {
		b.Fatalf("load sender: %v", err)
	}
	res := readAnswers(b, out.Bytes(), total)
	b.Logf("kernel.sched_autogroup_enabled: %s, CPU cgroup %s (docs/replicas.md: in the root cgroup, one CPU group per session, each Postgres backend its own; scripts/webhook-bench.sh runs in a cgroup)", autogroupState(), cpuCgroup())
	if *ackOnlyFlag {
		res.reportAnswers(b)
		// Killed, the App would leave its clones writing into the
		// folders the test removes.
		if err := app.stop(b); err != nil {
			b.Fatalf("stop the App: %v", err)
		}
		return
	}
	idle := func() bool {
		resp, err := http.Get(app.url + "/test/idle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	waitUntil(b, 15*time.Minute, "every accepted delivery to finish", func() bool {
		return countCompleted(h, RunName) == res.Accepted && idle()
	})
	res.report(b, time.Since(start))
}

func loadOnce(b *testing.B, round, githubNice, appNice, busy int, dbURL string) {
	loadShaped(b, round, githubNice, appNice, busy, dbURL, 50, 250*time.Millisecond)
}

func loadShaped(b *testing.B, round, githubNice, appNice, busy int, dbURL string, burst int, every time.Duration) {
	const total = 500
	h := newHarness(b)
	h.dbURL = dbURL
	v := &stubVerify{}
	h.git.SetNice(githubNice)
	h.nice = appNice
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	dir := b.TempDir()
	writeLoadBodies(b, h, dir, total)
	plan, _ := json.Marshal(loadPlan{URL: h.web.URL + "/webhook", Secret: testSecret, Count: total, Burst: burst,
		Every: every, BadEvery: 10, Round: round})
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), plan, 0o600); err != nil {
		b.Fatal(err)
	}
	stopBurning := burnCPU(b, busy)
	defer stopBurning()
	sender := exec.Command(os.Args[0])
	sender.Env = append(os.Environ(), loadSenderEnv+"="+dir)
	sender.Stderr = os.Stderr
	stopProfile := burstProfile(b)
	b.ResetTimer()
	start := time.Now()
	out, err := sender.Output()
	b.StopTimer()
	stopProfile()
	stopBurning()
	if err != nil {
		b.Fatalf("load sender: %v", err)
	}
	res := readAnswers(b, out, total)
	waitUntil(b, 15*time.Minute, "every accepted delivery to finish", func() bool {
		return countCompleted(h, RunName) == res.Accepted && h.idle()
	})
	res.report(b, time.Since(start))
	h.stop()
}

// burstProfileFlag names a CPU profile of the App's process while the
// deliveries are sent (not while the runs drain):
//
//	go test -run XXX -bench WebhookAck/sqlite -benchtime 1x ./app -args -burstprofile /tmp/cpu.out
var burstProfileFlag = flag.String("burstprofile", "", "write a CPU profile of the sending phase of the webhook benchmarks to this file")

// burstProfile starts the CPU profile of -burstprofile and returns its stop.
func burstProfile(b *testing.B) func() {
	if *burstProfileFlag == "" {
		return func() {}
	}
	f, err := os.Create(*burstProfileFlag)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

func countCompleted(h *harness, name string) int {
	n := 0
	for _, c := range h.gh.CheckRuns() {
		if c.Name == name && c.Status == "completed" {
			n++
		}
	}
	return n
}

// percentile returns the p-th percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[int(float64(len(d)-1)*p)]
}
