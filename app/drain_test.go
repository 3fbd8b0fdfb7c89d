package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveOn starts h's server through Serve on a loopback listener and
// returns its URL, the stop, and the channel of Serve's result.
func (h *harness) serveOn() (url string, stop context.CancelFunc, done chan error) {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	srv := h.srv
	go func() { done <- srv.serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), cancel, done
}

// healthz returns the status of GET /healthz, or 0 and the error when
// there was no answer.
func healthz(url string) (int, error) {
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// While a run finishes after a stop, /healthz answers 503 (the listener
// stays open), so that a load balancer takes the server out; before, the
// listener closed first and the connection was refused (issue 14.16).
func TestHealthzAnswers503WhileDraining(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(5, h.repo.heads[0], false)
	h.grace = 3 * time.Second
	v := &stubVerify{block: h.repo.heads[0], started: make(chan string, 1)}
	h.start(v.fn)
	url, stop, done := h.serveOn()
	if code, err := healthz(url); code != http.StatusOK {
		t.Fatalf("healthz before the stop: %d %v", code, err)
	}
	h.send("pull_request", "drain-1", h.pullPayload("synchronize", 5, h.repo.heads[0], false))
	h.waitStarted(v)
	stop()
	var code int
	var err error
	waitUntil(t, 10*time.Second, "healthz to answer 503 while the run finishes", func() bool {
		code, err = healthz(url)
		return code == http.StatusServiceUnavailable
	}, func() string { return fmt.Sprintf("healthz %d %v", code, err) })
	// A delivery while draining is kept for the next start.
	if got := h.send("pull_request", "drain-2", h.pullPayload("synchronize", 5, h.repo.heads[1], false)); got != http.StatusAccepted {
		t.Errorf("a delivery while draining: %d, want 202", got)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the grace period")
	}
	if _, err := healthz(url); err == nil {
		t.Fatal("the listener is still open after Serve returned")
	}
	h.srv = nil // Serve has shut it down
}

// A server with nothing to do stops at once, not after the grace period
// (issue 14.16: an idle server waited the whole 30 s).
func TestIdleServerStopsAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.grace = time.Hour
	h.start((&stubVerify{}).fn)
	_, stop, done := h.serveOn()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("an idle server still waits 15 s after the stop (grace 1 h)")
	}
	h.srv = nil
}

// The HTTP server reads at most MaxHeaderBytes of headers: a 200 KB
// event name is refused by the server, not read into the handler
// (issue 14.10).
func TestHTTPServerCapsHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start((&stubVerify{}).fn)
	url, stop, done := h.serveOn()
	defer func() { stop(); <-done; h.srv = nil }()
	body := []byte(`{"zen":"x"}`)
	cases := []struct {
		name  string
		event string
		want  int
	}{
		{"normal", "ping", http.StatusOK},
		{"200 KB event", strings.Repeat("E", 200<<10), http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, url+"/webhook", strings.NewReader(string(body)))
		for k, v := range signedHeaders(c.event, testDeliveryID("hdr-"+c.name), body) {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
}
