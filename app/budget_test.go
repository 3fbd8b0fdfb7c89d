package app

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The bodies read at once are capped across requests: unsigned senders
// that start many 25 MB bodies cannot hold more than the budget; the
// next one gets 503 until the budget is back (issue 14.10).
func TestBodiesInFlightAreCapped(t *testing.T) {
	old := maxBodiesInFlight
	maxBodiesInFlight = 1000
	t.Cleanup(func() { maxBodiesInFlight = old })
	h := newHarness(t)
	h.start((&stubVerify{}).fn)
	post := func(body io.Reader, n int64) int {
		req, _ := http.NewRequest(http.MethodPost, h.web.URL+"/webhook", body)
		req.ContentLength = n
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set(SignatureHeader, "sha256="+strings.Repeat("0", 64))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// A slow sender holds 800 of the 1000 bytes.
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.CloseWithError(io.ErrUnexpectedEOF) }) // before the harness stops
	first := make(chan int, 1)
	go func() { first <- post(pr, 800) }()
	if _, err := pw.Write(bytes.Repeat([]byte("x"), 100)); err != nil {
		t.Fatal(err)
	}
	got := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && got != http.StatusServiceUnavailable; {
		got = post(bytes.NewReader(make([]byte, 500)), 500)
	}
	if got != http.StatusServiceUnavailable {
		t.Fatalf("a 500-byte body while 800 of 1000 are held: %d, want 503", got)
	}
	if _, err := pw.Write(bytes.Repeat([]byte("x"), 700)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if code := <-first; code != http.StatusBadRequest {
		t.Fatalf("the slow body: %d, want 400 (bad signature)", code)
	}
	if code := post(bytes.NewReader(make([]byte, 500)), 500); code != http.StatusBadRequest {
		t.Fatalf("a 500-byte body after the slow one: %d, want 400 (bad signature)", code)
	}
}
