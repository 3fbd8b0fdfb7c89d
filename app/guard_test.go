package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// uuidRE is the form of GitHub's delivery ids.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// testDeliveryID turns a readable test id ("d-1") into a delivery id of
// GitHub's form, the same for the same name; a UUID is kept as it is.
func testDeliveryID(name string) string {
	if uuidRE.MatchString(name) {
		return name
	}
	h := sha256.Sum256([]byte(name))
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// sendRaw posts body with exactly these headers (nothing is mapped) and
// returns the status and the answer's text.
func (h *harness) sendRaw(headers map[string]string, body []byte) (int, string) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.web.URL+"/webhook", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// signedHeaders are the headers of a delivery of event with id, signed
// with the test secret.
func signedHeaders(event, id string, body []byte) map[string]string {
	return map[string]string{
		"X-GitHub-Event": event, "X-GitHub-Delivery": id, SignatureHeader: Sign([]byte(testSecret), body),
	}
}

// A replayed signed body with a delivery id that is a path is refused
// before anything is stored, and the folder it names is untouched
// (issue 14.9).
func TestDeliveryIDIsNotAPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(7, h.repo.heads[0], false)
	victim := filepath.Join(filepath.Dir(h.data), "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := h.pullPayload("synchronize", 7, h.repo.heads[0], false)
	for _, id := range []string{
		"../../victim", "../victim", "/tmp", "", strings.Repeat("a", 5000),
		"72d3162e-cc78-11e3-81ab-4c9367dc0958/..", "72D3162E-CC78-11E3-81AB-4C9367DC0958x",
	} {
		code, answer := h.sendRaw(signedHeaders("pull_request", id, body), body)
		if code != http.StatusBadRequest || !strings.Contains(answer, "X-GitHub-Delivery") {
			t.Errorf("delivery id %.40q: %d %q, want 400 naming X-GitHub-Delivery", id, code, answer)
		}
		if len(answer) > 300 {
			t.Errorf("the answer echoes %d bytes", len(answer))
		}
	}
	// The same body with a good id runs; the work folder has a name the
	// server made.
	if code, _ := h.sendRaw(signedHeaders("pull_request", "72d3162e-cc78-11e3-81ab-4c9367dc0958", body), body); code != http.StatusAccepted {
		t.Fatalf("good id: %d, want 202", code)
	}
	h.waitFor("the run", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() })
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatalf("the folder outside the data folder is gone: %v", err)
	}
	if n := v.calls.Load(); n != 1 {
		t.Fatalf("verify ran %d times, want 1", n)
	}
}

// The same signed body under a new delivery id is a duplicate: the id is
// not signed, the body is (issue 14.9).
func TestReplayedBodyWithNewIDIsDuplicate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(8, h.repo.heads[1], false)
	body := h.pullPayload("synchronize", 8, h.repo.heads[1], false)
	if code, _ := h.sendRaw(signedHeaders("pull_request", testDeliveryID("first"), body), body); code != http.StatusAccepted {
		t.Fatalf("first: %d", code)
	}
	h.waitFor("the run", func() bool { return h.allDone(h.repo.heads[1], 3) && h.idle() })
	for _, name := range []string{"second", "third"} {
		code, answer := h.sendRaw(signedHeaders("pull_request", testDeliveryID(name), body), body)
		if code != http.StatusOK || !strings.Contains(answer, "duplicate") {
			t.Errorf("replay %s: %d %q, want 200 duplicate", name, code, answer)
		}
	}
	h.waitFor("idle", h.idle)
	if n := v.calls.Load(); n != 1 {
		t.Fatalf("verify ran %d times for one body, want 1", n)
	}
	if got := countRuns(h, RunName); got != 1 {
		t.Fatalf("%d %q runs, want 1", got, RunName)
	}
}

// Unsigned requests with made-up event names add no metric series, and
// a huge event name reaches neither /metrics nor the log (issue 14.10).
func TestEventLabelIsBoundedAndSigned(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start((&stubVerify{}).fn)
	body := []byte(`{"zen":"x"}`)
	seriesBefore := strings.Count(h.metricsText(), "template_verify_deliveries_total{")
	for i := 0; i < 300; i++ {
		hd := map[string]string{
			"X-GitHub-Event": "evil-" + strings.Repeat("x", i), "X-GitHub-Delivery": testDeliveryID("bad"),
			SignatureHeader: "sha256=" + strings.Repeat("0", 64),
		}
		if code, _ := h.sendRaw(hd, body); code != http.StatusBadRequest {
			t.Fatalf("bad signature: %d", code)
		}
	}
	huge := strings.Repeat("E", 200<<10)
	logBefore := len(h.logs.String())
	for _, sig := range []string{"sha256=" + strings.Repeat("0", 64), Sign([]byte(testSecret), body)} {
		h.sendRaw(map[string]string{"X-GitHub-Event": huge, "X-GitHub-Delivery": testDeliveryID("huge"), SignatureHeader: sig}, body)
	}
	// Signed events the App does not know share one label.
	for i := 0; i < 20; i++ {
		b := []byte(`{"n":` + string(rune('0'+i%10)) + `,"i":"` + strings.Repeat("i", i) + `"}`)
		h.sendRaw(signedHeaders("made_up_"+strings.Repeat("y", i), testDeliveryID("made-up-"+strings.Repeat("y", i)), b), b)
	}
	m := h.metricsText()
	series := strings.Count(m, "template_verify_deliveries_total{") - seriesBefore
	if series > 4 {
		t.Errorf("%d new delivery series after 300 unsigned and 20 unknown events, want at most 4:\n%.2000s", series, m)
	}
	if len(m) > 20<<10 {
		t.Errorf("/metrics is %d bytes", len(m))
	}
	if strings.Contains(m, "evil-") || strings.Contains(m, "made_up") {
		t.Errorf("/metrics has an unsigned or unknown event name")
	}
	// The 200 KB event name is cut in the log. Only what the two
	// deliveries wrote counts: the queue logs on its own at the same time
	// (on a loaded machine, 8 KB in one run).
	if grew := h.logs.String()[logBefore:]; strings.Contains(grew, strings.Repeat("E", 200)) {
		t.Errorf("the log has the huge event name uncut (%d bytes since the two deliveries)", len(grew))
	}
}

func (h *harness) metricsText() string {
	h.t.Helper()
	resp, err := http.Get(h.web.URL + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// The same body under another event is not a duplicate: the body key
// holds the event. The same body under the same event and a new id still
// is. Before, the second event's delivery was answered "duplicate".
func TestSameBodyOfAnotherEventIsNotDuplicate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	body := []byte(`{"action":"created","installation":{"id":1}}`)
	send := func(event, id string) string {
		code, answer := h.sendRaw(signedHeaders(event, testDeliveryID(id), body), body)
		if code >= 300 {
			t.Fatalf("%s %s: %d %q", event, id, code, answer)
		}
		return answer
	}
	if a := send("star", "one"); strings.Contains(a, "duplicate") {
		t.Fatalf("first delivery: %q", a)
	}
	if a := send("watch", "two"); strings.Contains(a, "duplicate") {
		t.Errorf("the same body under another event: %q, want no duplicate", a)
	}
	if a := send("star", "three"); !strings.Contains(a, "duplicate") {
		t.Errorf("the same body under the same event and a new id: %q, want duplicate", a)
	}
}

// A delivery id is a duplicate under the same event only: the same id
// under another event (with its own body) is admitted, the same id and
// event again is a duplicate. Before, the id alone was the key.
func TestSameIDOfAnotherEventIsNotDuplicate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	send := func(event, id, body string) string {
		code, answer := h.sendRaw(signedHeaders(event, testDeliveryID(id), []byte(body)), []byte(body))
		if code >= 300 {
			t.Fatalf("%s %s: %d %q", event, id, code, answer)
		}
		return answer
	}
	if a := send("star", "same", `{"action":"created","installation":{"id":1}}`); strings.Contains(a, "duplicate") {
		t.Fatalf("first delivery: %q", a)
	}
	if a := send("watch", "same", `{"action":"started","installation":{"id":1}}`); strings.Contains(a, "duplicate") {
		t.Errorf("the same id under another event: %q, want no duplicate", a)
	}
	if a := send("star", "same", `{"action":"created","installation":{"id":1},"x":1}`); !strings.Contains(a, "duplicate") {
		t.Errorf("the same id under the same event: %q, want duplicate", a)
	}
}
