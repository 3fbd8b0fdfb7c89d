package githubapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/fakeclock"
	"github.com/formula-code/template-verify/internal/fakegithub"
)

const (
	owner   = "octo"
	repo    = "hello"
	headSHA = "0123456789abcdef0123456789abcdef01234567"
)

func newClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

type env struct {
	srv    *fakegithub.Server
	clock  *fakeclock.Clock
	client *github.Client
	tr     *Transport
}

// setup starts a fake GitHub and a client of it whose writes are not
// paced, so the sleeps a test sees are the retries alone.
func setup(t *testing.T) *env {
	t.Helper()
	srv := fakegithub.New(t)
	clk := newClock()
	srv.SetNow(clk.Now)
	tr := &Transport{Clock: clk, WriteInterval: -1}
	c, err := NewClient(srv.URL, "tok", tr)
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, clock: clk, client: c, tr: tr}
}

// createRun sends one write through the client.
func createRun(e *env) error {
	_, _, err := e.client.Checks.CreateCheckRun(context.Background(), owner, repo, github.CreateCheckRunOptions{Name: "x", HeadSHA: headSHA})
	return err
}

func TestRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		faults   func(e *env)
		sleeps   []time.Duration
		requests int
		errHas   string
		status   int
	}{
		{
			name:     "secondary limit with Retry-After 7",
			faults:   func(e *env) { e.srv.FailNext(1, fakegithub.SecondaryRateLimit(7*time.Second)) },
			sleeps:   []time.Duration{7 * time.Second},
			requests: 2,
		},
		{
			name: "primary limit waits until x-ratelimit-reset",
			faults: func(e *env) {
				e.srv.FailNext(1, fakegithub.PrimaryRateLimit(e.clock.Now().Add(42*time.Second)))
			},
			sleeps:   []time.Duration{42 * time.Second},
			requests: 2,
		},
		{
			name:     "secondary limit without Retry-After waits 60 s",
			faults:   func(e *env) { e.srv.FailNext(1, fakegithub.SecondaryRateLimit(0)) },
			sleeps:   []time.Duration{time.Minute},
			requests: 2,
		},
		{
			name:     "429 without headers waits 60 s",
			faults:   func(e *env) { e.srv.FailNext(1, fakegithub.Fault{Status: 429, Message: "Too Many Requests"}) },
			sleeps:   []time.Duration{time.Minute},
			requests: 2,
		},
		{
			name:     "two 502s, then OK",
			faults:   func(e *env) { e.srv.FailNext(2, fakegithub.ServerError(502)) },
			sleeps:   []time.Duration{time.Second, 2 * time.Second},
			requests: 3,
		},
		{
			name:     "502 four times gives up after three retries",
			faults:   func(e *env) { e.srv.FailNext(4, fakegithub.ServerError(502)) },
			sleeps:   []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
			requests: 4,
			errHas:   "502",
			status:   502,
		},
		{
			name:     "422 is reported, not retried",
			faults:   func(e *env) { e.srv.FailNext(1, fakegithub.Unprocessable("head_sha is not a commit")) },
			requests: 1,
			errHas:   "head_sha is not a commit",
			status:   422,
		},
		{
			name:     "403 that is not a rate limit is reported, not retried",
			faults:   func(e *env) { e.srv.FailNext(1, fakegithub.Forbidden()) },
			requests: 1,
			errHas:   "Resource not accessible by integration",
			status:   403,
		},
		{
			name:     "a rate limit longer than MaxWait is reported",
			faults:   func(e *env) { e.srv.FailNext(1, fakegithub.SecondaryRateLimit(time.Hour)) },
			requests: 1,
			errHas:   "secondary rate limit",
			status:   403,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t)
			tc.faults(e)
			err := createRun(e)
			if tc.errHas == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)) {
				t.Fatalf("error %v, want one with %q", err, tc.errHas)
			}
			if tc.status != 0 && StatusOf(err) != tc.status {
				t.Errorf("StatusOf = %d, want %d", StatusOf(err), tc.status)
			}
			if got := len(e.srv.Requests()); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if got := e.clock.Sleeps(); fmt.Sprint(got) != fmt.Sprint(tc.sleeps) {
				t.Errorf("sleeps %v, want %v", got, tc.sleeps)
			}
			if tc.errHas == "" && len(e.srv.CheckRuns()) != 1 {
				t.Errorf("%d check runs after the retry, want 1", len(e.srv.CheckRuns()))
			}
		})
	}
}

func TestForbiddenIsNotRateLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.srv.FailNext(1, fakegithub.Forbidden())
	if err := createRun(e); !IsForbidden(err) {
		t.Errorf("IsForbidden(%v) = false", err)
	}
	e.srv.FailNext(1, fakegithub.SecondaryRateLimit(time.Hour))
	if err := createRun(e); err == nil || IsForbidden(err) {
		t.Errorf("IsForbidden(%v) = true for a rate limit", err)
	}
}

// After a refused rate limit, go-github must not refuse the next request
// on its own: the transport hid the headers it keys on.
func TestNoClientSideBlockAfterGivingUp(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.srv.FailNext(1, fakegithub.SecondaryRateLimit(time.Hour))
	if err := createRun(e); err == nil {
		t.Fatal("want an error")
	}
	e.srv.FailNext(1, fakegithub.PrimaryRateLimit(time.Now().Add(time.Hour)))
	e.tr.MaxWait = time.Second // refuse the one-hour wait
	if err := createRun(e); err == nil {
		t.Fatal("want an error")
	}
	if err := createRun(e); err != nil {
		t.Fatalf("the next request did not go out: %v", err)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Errorf("%d requests reached the server, want 3", n)
	}
}

// A success with x-ratelimit-remaining 0 makes the next request wait for
// the reset.
func TestUsedUpLimitPausesNextRequest(t *testing.T) {
	t.Parallel()
	clk := newClock()
	reset := clk.Now().Add(30 * time.Second)
	calls := 0
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		h := http.Header{}
		if calls == 1 {
			h.Set("X-Ratelimit-Remaining", "0")
			h.Set("X-Ratelimit-Reset", fmt.Sprint(reset.Unix()))
		}
		return &http.Response{StatusCode: 200, Header: h, Body: http.NoBody, Request: r}, nil
	})
	tr := &Transport{Base: rt, Clock: clk}
	for range 2 {
		req, _ := http.NewRequest("GET", "http://127.0.0.1/x", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("X-Ratelimit-Reset") != "" {
			t.Error("the reset header went up to go-github")
		}
	}
	if s := clk.Sleeps(); fmt.Sprint(s) != "[30s]" {
		t.Errorf("sleeps %v, want [30s]", s)
	}
}

func TestNetworkErrorRetriesReadsOnly(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"GET", "POST"} {
		clk := newClock()
		calls := 0
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			calls++
			if calls == 1 {
				return nil, fmt.Errorf("connection reset")
			}
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
		})
		tr := &Transport{Base: rt, Clock: clk}
		req, _ := http.NewRequest(method, "http://127.0.0.1/x", strings.NewReader("{}"))
		_, err := tr.RoundTrip(req)
		if method == "GET" && (err != nil || calls != 2) {
			t.Errorf("GET: err %v after %d calls, want a retry", err, calls)
		}
		if method == "POST" && (err == nil || calls != 1) {
			t.Errorf("POST: err %v after %d calls, want no retry", err, calls)
		}
	}
}

func TestRetryAfterDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d, ok := parseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now)
	if !ok || d != 90*time.Second {
		t.Errorf("got %v %v", d, ok)
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("a bad value parsed")
	}
}

func TestCancelledContextStopsWaiting(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.srv.FailNext(1, fakegithub.SecondaryRateLimit(7*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := e.client.Checks.CreateCheckRun(ctx, owner, repo, github.CreateCheckRunOptions{Name: "x", HeadSHA: headSHA})
	if err == nil {
		t.Fatal("want an error")
	}
	if len(e.srv.CheckRuns()) != 0 {
		t.Error("a request went out after the cancel")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
