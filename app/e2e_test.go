package app

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/report"
)

const botLogin = "template-verify[bot]"

func (h *harness) addPull(n int, head string, fork bool) {
	p := fakegithub.Pull{Number: n, HeadSHA: head, HeadRef: "feature", BaseSHA: h.repo.base, BaseRef: "main", Author: "dev", Body: "A change."}
	if fork {
		p.HeadRepo, p.Fork = "forker/hello", true
	}
	h.gh.AddPull(testFull, p)
}

// installationTokens lists the tokens the fake made for the App.
func (h *harness) installationTokens() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range h.gh.Requests() {
		if strings.HasPrefix(r.Token, "ghs_") && !seen[r.Token] {
			seen[r.Token] = true
			out = append(out, r.Token)
		}
	}
	return out
}

func TestSynchronizeRunsChecksAndOneComment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.addPull(7, h.repo.heads[0], false)
	h.gh.SetPermission(testFull, "dev", "write")

	if got := h.send("pull_request", "d-1", h.pullPayload("synchronize", 7, h.repo.heads[0], false)); got != http.StatusAccepted {
		t.Fatalf("status %d, want 202", got)
	}
	h.waitFor("the runs of head 1", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() })
	runs := h.runsOf(h.repo.heads[0])
	for name, want := range map[string]string{RunName: "success", "template-verify / render": "success", "template-verify / gate": "success"} {
		if runs[name].Conclusion != want {
			t.Errorf("%s: conclusion %q, want %q (%s)", name, runs[name].Conclusion, want, runs[name].Summary)
		}
	}
	if !strings.Contains(runs["template-verify / render"].Summary, "echo head 1") {
		t.Errorf("render summary %q does not show the cloned head", runs["template-verify / render"].Summary)
	}
	cs := h.gh.Comments(testFull, 7)
	if len(cs) != 1 || cs[0].Author != botLogin || !strings.Contains(cs[0].Body, report.Marker) {
		t.Fatalf("comments: %+v", cs)
	}

	// The token: sent to git as Basic auth, and nowhere else.
	toks := h.installationTokens()
	if len(toks) == 0 {
		t.Fatal("no installation token was used")
	}
	var sawAuth bool
	for _, r := range h.git.Requests() {
		if r.Authorization == "Basic "+base64.StdEncoding.EncodeToString([]byte("x-access-token:"+toks[0])) {
			sawAuth = true
		}
		if strings.Contains(r.Path+r.Query, toks[0]) {
			t.Errorf("git request URL has the token: %s", r.Path)
		}
	}
	if !sawAuth {
		t.Error("git got no Basic auth header with the installation token")
	}
	h.stop()
	assertNoToken(t, h, toks)
	for _, env := range v.envs {
		for _, e := range env {
			for _, tok := range toks {
				if strings.Contains(e, tok) {
					t.Errorf("the environment of the verification has the token: %s", e)
				}
			}
		}
	}
}

// assertNoToken checks logs, request bodies, outputs and comments.
func assertNoToken(t *testing.T, h *harness, toks []string) {
	t.Helper()
	logs := h.logs.String()
	if !strings.Contains(logs, `"delivery"`) {
		t.Fatalf("no log lines recorded: %q", logs)
	}
	for _, tok := range toks {
		b64 := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
		for _, s := range []string{tok, b64} {
			if strings.Contains(logs, s) {
				t.Errorf("a log line has the token")
			}
			for _, r := range h.gh.Requests() {
				if strings.Contains(string(r.Body), s) || strings.Contains(r.Path, s) {
					t.Errorf("request %s %s has the token in its body or path", r.Method, r.Path)
				}
			}
			for _, c := range h.gh.CheckRuns() {
				if strings.Contains(c.Summary+c.Text+c.Title, s) {
					t.Errorf("check run %s has the token", c.Name)
				}
			}
		}
	}
}

func TestNewPushCancelsOlderRunAndEditsComment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{block: h.repo.heads[1], started: make(chan string, 10)}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(7, h.repo.heads[0], false)

	h.send("pull_request", "p-1", h.pullPayload("opened", 7, h.repo.heads[0], false))
	h.waitFor("head 1", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() })

	h.addPull(7, h.repo.heads[1], false)
	h.send("pull_request", "p-2", h.pullPayload("synchronize", 7, h.repo.heads[1], false))
	for head := range v.started {
		if head == h.repo.heads[1] {
			break
		}
	}
	h.addPull(7, h.repo.heads[2], false)
	h.send("pull_request", "p-3", h.pullPayload("synchronize", 7, h.repo.heads[2], false))
	h.waitFor("head 3", func() bool { return h.allDone(h.repo.heads[2], 3) && h.allDone(h.repo.heads[1], 3) && h.idle() })

	for name, c := range h.runsOf(h.repo.heads[1]) {
		if c.Conclusion != "cancelled" || !strings.Contains(c.Summary, "newer push") || !strings.Contains(c.Summary, short(h.repo.heads[2])) {
			t.Errorf("%s on head 2: %s %q", name, c.Conclusion, c.Summary)
		}
	}
	if c := h.runsOf(h.repo.heads[2])[RunName]; c.Conclusion != "success" {
		t.Errorf("head 3: %s", c.Conclusion)
	}
	cs := h.gh.Comments(testFull, 7)
	// Each push may first mark the comment "verifying" (head 2 only when
	// it started before head 3 cancelled it); the last edit is head 3's
	// result, with no verifying line left.
	if len(cs) != 1 || cs[0].Edits < 2 || strings.Contains(cs[0].Body, "Verifying") || !strings.Contains(cs[0].Body, short(h.repo.heads[2])) && !strings.Contains(cs[0].Body, h.repo.heads[2][:7]) {
		t.Fatalf("want one comment edited for head 3 (verifying, then its result), got %d comments: %+v", len(cs), cs)
	}
}

func TestBadSignatureIs400AndNothingHappens(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	body := h.pullPayload("synchronize", 7, h.repo.heads[0], false)
	cases := map[string]string{
		"wrong secret": Sign([]byte("other"), body),
		"missing":      "",
		"sha1 form":    "sha1=" + strings.Repeat("0", 40),
		"not hex":      "sha256=zz",
	}
	for name, sig := range cases {
		if got := h.sendSigned("pull_request", "bad-"+name, body, sig); got != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, got)
		}
	}
	// The handler answers 400 before it stores anything, so no work can
	// follow a refused delivery: the checks need no wait.
	if n := len(h.gh.Requests()) - h.base; n != 0 {
		t.Fatalf("%d requests went to GitHub after bad signatures", n)
	}
	if !h.idle() {
		t.Fatal("a job was stored")
	}
	if got := h.srv.metrics.DeliveryCount(labelUnverified, "bad_signature"); got != float64(len(cases)) {
		t.Fatalf("bad_signature count %v", got)
	}
	// The same body with a good signature still gets in: nothing was
	// remembered from the bad ones.
	if got := h.send("pull_request", "bad-wrong secret", body); got != http.StatusAccepted {
		t.Fatalf("good signature after bad ones: %d", got)
	}
}

func TestSameDeliveryTwiceRunsOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "admin")
	h.addPull(3, h.repo.heads[0], false)
	body := h.pullPayload("reopened", 3, h.repo.heads[0], false)
	if a, b := h.send("pull_request", "same", body), h.send("pull_request", "same", body); a != 202 || b != 200 {
		t.Fatalf("statuses %d, %d; want 202, 200", a, b)
	}
	h.waitFor("the run", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() })
	// The same id is not a second run (nor is another delivery of the
	// same head: see TestFloodThenKillRunsEachHeadOnce).
	if n := v.calls.Load(); n != 1 {
		t.Fatalf("verify ran %d times", n)
	}
	n := 0
	for _, c := range h.gh.CheckRuns() {
		if c.Name == RunName {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d %q runs, want 1", n, RunName)
	}
}

func TestForkPullWaitsForMaintainerCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "maint", "maintain")
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(9, h.repo.heads[0], true)

	h.send("pull_request", "f-1", h.pullPayload("opened", 9, h.repo.heads[0], true))
	h.waitFor("the neutral run", func() bool { return h.allDone(h.repo.heads[0], 1) && h.idle() })
	c := h.runsOf(h.repo.heads[0])[RunName]
	if c.Conclusion != "neutral" || !strings.Contains(c.Summary, CommandWord) || !strings.Contains(c.Summary, "fork") {
		t.Fatalf("fork run: %s %q", c.Conclusion, c.Summary)
	}

	// A check_suite for the fork carries no pull request: the App finds
	// it by sha, and still does not run its code.
	cs := fixture(t, "check_suite/requested.payload.json")
	h.rewriteRepo(cs)
	obj(cs, "check_suite")["head_sha"] = h.repo.heads[0]
	obj(cs, "check_suite")["pull_requests"] = []any{}
	h.send("check_suite", "f-2", mustJSON(cs))
	h.waitFor("the second neutral run", func() bool { return countRuns(h, RunName) == 2 && h.idle() })

	// A comment from someone without write access does nothing.
	h.send("issue_comment", "f-3", h.commentPayload(9, "stranger", "/template-verify please"))
	h.waitFor("the stranger's permission read and the job dropped", func() bool {
		return h.asked("/collaborators/stranger/permission") && h.idle()
	})
	if n := v.calls.Load(); n != 0 {
		t.Fatalf("fork code ran %d times before a maintainer asked", n)
	}

	h.send("issue_comment", "f-4", h.commentPayload(9, "maint", "Looks fine.\n/template-verify\n"))
	h.waitFor("the run after the command", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() && v.calls.Load() == 1 })
	runs := h.runsOf(h.repo.heads[0])
	if runs[RunName].Conclusion != "success" || runs["template-verify / gate"].Conclusion != "success" {
		t.Fatalf("after the command: %s / %s", runs[RunName].Conclusion, runs["template-verify / gate"].Conclusion)
	}
}

func countRuns(h *harness, name string) int {
	n := 0
	for _, c := range h.gh.CheckRuns() {
		if c.Name == name {
			n++
		}
	}
	return n
}

func TestRestartDuringRunFinishesIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(5, h.repo.heads[0], false)
	first := &stubVerify{block: h.repo.heads[0], started: make(chan string, 1)}
	h.start(first.fn)
	h.send("pull_request", "r-1", h.pullPayload("synchronize", 5, h.repo.heads[0], false))
	h.waitStarted(first)
	h.stop() // the run stops; the job stays in the store

	var open int
	for _, c := range h.gh.CheckRuns() {
		if c.Status != "completed" {
			open++
		}
	}
	if open == 0 {
		t.Fatal("want open runs after the stop (the run was in the middle)")
	}
	second := &stubVerify{}
	h.start(second.fn)
	h.waitFor("the run after the restart", func() bool { return h.idle() && second.calls.Load() == 1 })
	for _, c := range h.gh.CheckRuns() {
		if c.Status != "completed" {
			t.Errorf("run %d %s is still %s", c.ID, c.Name, c.Status)
		}
	}
	runs := h.runsOf(h.repo.heads[0])
	if runs[RunName].Conclusion != "success" || runs["template-verify / render"].Conclusion != "success" {
		t.Fatalf("after restart: %+v", runs)
	}
	// The restart completes the runs of the stopped run: one set.
	for _, name := range []string{"template-verify / render", "template-verify / gate"} {
		if n := countRuns(h, name); n != 1 {
			t.Errorf("%d check runs %q, want 1", n, name)
		}
	}
}

func TestSecondaryRateLimitIsWaitedOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(4, h.repo.heads[0], false)
	f := fakegithub.SecondaryRateLimit(37 * time.Second)
	f.Method = http.MethodPatch
	h.gh.FailNext(1, f)
	h.send("pull_request", "rl-1", h.pullPayload("synchronize", 4, h.repo.heads[0], false))
	h.waitFor("the run", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() })
	var waited bool
	for _, d := range h.clock.Sleeps() {
		if d == 37*time.Second {
			waited = true
		}
	}
	if !waited {
		t.Fatalf("no wait of 37 s; waits: %v", h.clock.Sleeps())
	}
	var got403 bool
	for _, r := range h.gh.Requests() {
		if r.Status == http.StatusForbidden {
			got403 = true
		}
	}
	if !got403 || h.runsOf(h.repo.heads[0])[RunName].Conclusion != "success" {
		t.Fatal("the 403 did not happen or the run did not finish")
	}
}

func TestOperationsEndpoints(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start((&stubVerify{}).fn)
	get := func(path string) (int, string) {
		resp, err := http.Get(h.web.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	ping, _ := h.fixtureBytes("ping/with-app_id.payload.json")
	if got := h.send("ping", "o-1", ping); got != http.StatusOK {
		t.Errorf("ping: %d", got)
	}
	inst, _ := h.fixtureBytes("installation/created.payload.json")
	if got := h.send("installation", "o-2", inst); got != http.StatusAccepted {
		t.Errorf("installation: %d, want 202", got)
	}
	labeled, _ := h.fixtureBytes("pull_request/labeled.payload.json")
	if got := h.send("pull_request", "o-3", labeled); got != http.StatusAccepted {
		t.Errorf("labeled: %d, want 202", got)
	}
	if got := h.send("pull_request", "o-4", []byte(`{"action":"opened"`)); got != http.StatusBadRequest {
		t.Errorf("broken JSON: %d, want 400", got)
	}
	big := make([]byte, MaxBody+1)
	if got := h.send("pull_request", "o-5", big); got != http.StatusRequestEntityTooLarge {
		t.Errorf("26 MB body: %d, want 413", got)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %q", code, body)
	}
	_, m := get("/metrics")
	// Every series carries the replica's label; the counts are of this one.
	m = regexp.MustCompile(`\{replica="[^"]*"\}`).ReplaceAllString(m, "")
	m = regexp.MustCompile(`replica="[^"]*",?`).ReplaceAllString(m, "")
	for _, want := range []string{
		`template_verify_deliveries_total{event="ping",result="ping"} 1`,
		`template_verify_deliveries_total{event="installation",result="ignored"} 1`,
		`template_verify_deliveries_total{event="unverified",result="too_large"} 1`,
		`template_verify_deliveries_total{event="pull_request",result="bad_payload"} 1`,
		"template_verify_queue_depth 0",
		"# TYPE template_verify_run_duration_seconds histogram",
		`template_verify_webhook_answer_seconds_bucket{le="+Inf"} 5`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	if len(h.gh.Requests()) != h.base {
		t.Errorf("requests to GitHub for events that need none: %d", len(h.gh.Requests()))
	}
}

func (h *harness) fixtureBytes(name string) ([]byte, error) {
	p := fixture(h.t, name)
	if _, ok := p["repository"].(map[string]any); ok {
		h.rewriteRepo(p)
	}
	return mustJSON(p), nil
}

func mustJSON(v any) []byte {
	b, err := jsonMarshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return b
}
