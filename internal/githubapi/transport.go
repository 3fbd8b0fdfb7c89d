package githubapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Defaults of Transport.
const (
	DefaultWriteInterval    = time.Second
	DefaultServerRetries    = 3
	DefaultRateLimitRetries = 5
	DefaultMaxWait          = 15 * time.Minute
	// DefaultRateLimitWait is the wait after a rate limit that names no
	// time, as GitHub's documentation asks.
	DefaultRateLimitWait = time.Minute
)

// Transport is an http.RoundTripper for GitHub's REST API that retries what
// GitHub asks to retry:
//
//   - a rate limit (403 or 429 with Retry-After, x-ratelimit-remaining: 0,
//     or a "rate limit" message): it waits for Retry-After, else until
//     x-ratelimit-reset, else 60 s, then sends the request again;
//   - a server error (5xx): it sends the request again up to ServerRetries
//     times, after 1 s, 2 s, 4 s ...;
//   - a network error on GET or HEAD, like a server error.
//
// Any other response goes back to the caller unchanged, so a 422 or a 403
// that is not a rate limit is an error at once and never retried. Writes
// (POST, PATCH, PUT, DELETE) start at least WriteInterval apart.
//
// The transport does all waiting itself. go-github keeps its own record of
// rate limits and refuses requests without sending them; so that it never
// does, the responses it gets carry no Retry-After header and no
// x-ratelimit-reset header when x-ratelimit-remaining is 0.
type Transport struct {
	Base  http.RoundTripper // nil: http.DefaultTransport
	Clock Clock             // nil: RealClock
	// WriteInterval is the least time between the starts of two writes.
	// Zero means DefaultWriteInterval; a negative value turns pacing off.
	WriteInterval time.Duration
	// ServerRetries is how often a 5xx is retried. Zero means
	// DefaultServerRetries; a negative value turns the retries off.
	ServerRetries int
	// RateLimitRetries is how often one request waits out a rate limit.
	// Zero means DefaultRateLimitRetries.
	RateLimitRetries int
	// MaxWait is the longest single wait. A rate limit that asks for more
	// goes back to the caller as an error. Zero means DefaultMaxWait.
	MaxWait time.Duration
	Log     *slog.Logger

	mu         sync.Mutex
	nextWrite  time.Time // the earliest start of the next write
	pauseUntil time.Time // x-ratelimit-remaining was 0 until this time
}

// RoundTrip sends req, with the waits and retries above.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	write := isWrite(req.Method)
	serverTries, limitTries := 0, 0
	for attempt := 0; ; attempt++ {
		if err := t.waitPause(ctx); err != nil {
			return nil, err
		}
		if write {
			if err := t.pace(ctx); err != nil {
				return nil, err
			}
		}
		r, ok := rewind(req, attempt)
		if !ok {
			return nil, errNoRewind(req)
		}
		resp, err := t.base().RoundTrip(r)
		if err != nil {
			if ctx.Err() != nil || write || serverTries >= t.serverRetries() {
				return nil, err
			}
			serverTries++
			t.log().Warn("GitHub request failed; retrying", "method", req.Method, "path", req.URL.Path, "error", err, "try", serverTries)
			if err := t.clock().Sleep(ctx, backoff(serverTries)); err != nil {
				return nil, err
			}
			continue
		}
		canRetry := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		switch kind, wait := t.classify(resp); kind {
		case rateLimited:
			if !canRetry || limitTries >= t.rateLimitRetries() || wait > t.maxWait() {
				return handUp(resp), nil
			}
			limitTries++
			discard(resp)
			t.log().Warn("GitHub rate limit; waiting", "method", req.Method, "path", req.URL.Path, "status", resp.StatusCode, "wait", wait, "try", limitTries)
			if err := t.clock().Sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		case serverError:
			if !canRetry || serverTries >= t.serverRetries() {
				return handUp(resp), nil
			}
			serverTries++
			discard(resp)
			t.log().Warn("GitHub server error; retrying", "method", req.Method, "path", req.URL.Path, "status", resp.StatusCode, "try", serverTries)
			if err := t.clock().Sleep(ctx, backoff(serverTries)); err != nil {
				return nil, err
			}
			continue
		}
		t.notePrimary(resp)
		return handUp(resp), nil
	}
}

// backoff is the wait before server retry n (1-based): 1 s, 2 s, 4 s ...
func backoff(n int) time.Duration {
	return time.Second << min(n-1, 6)
}

func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// rewind returns the request for one attempt: req itself first, then a
// clone with a fresh body.
func rewind(req *http.Request, attempt int) (*http.Request, bool) {
	if attempt == 0 {
		return req, true
	}
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, false
	}
	r.Body = body
	return r, true
}

// pace waits until the next write may start and books the slot after it.
func (t *Transport) pace(ctx context.Context) error {
	iv := t.WriteInterval
	if iv == 0 {
		iv = DefaultWriteInterval
	}
	if iv < 0 {
		return nil
	}
	c := t.clock()
	t.mu.Lock()
	now := c.Now()
	start := now
	if t.nextWrite.After(now) {
		start = t.nextWrite
	}
	t.nextWrite = start.Add(iv)
	t.mu.Unlock()
	return c.Sleep(ctx, start.Sub(now))
}

// waitPause waits while the primary rate limit is used up.
func (t *Transport) waitPause(ctx context.Context) error {
	c := t.clock()
	t.mu.Lock()
	until := t.pauseUntil
	t.mu.Unlock()
	if until.IsZero() {
		return nil
	}
	d := until.Sub(c.Now())
	if d <= 0 {
		return nil
	}
	t.log().Warn("GitHub rate limit used up; waiting for the reset", "wait", d)
	if err := c.Sleep(ctx, d); err != nil {
		return err
	}
	t.mu.Lock()
	if !t.pauseUntil.After(until) {
		t.pauseUntil = time.Time{}
	}
	t.mu.Unlock()
	return nil
}

// notePrimary records a used-up primary rate limit from a response that
// was not itself refused, so that the next request waits for the reset.
func (t *Transport) notePrimary(resp *http.Response) {
	if resp.Header.Get(hdrRemaining) != "0" {
		return
	}
	reset, ok := parseReset(resp.Header.Get(hdrReset))
	if !ok {
		return
	}
	c := t.clock()
	if d := reset.Sub(c.Now()); d <= 0 || d > t.maxWait() {
		return
	}
	t.mu.Lock()
	if reset.After(t.pauseUntil) {
		t.pauseUntil = reset
	}
	t.mu.Unlock()
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) clock() Clock {
	if t.Clock != nil {
		return t.Clock
	}
	return RealClock{}
}

func (t *Transport) log() *slog.Logger {
	if t.Log != nil {
		return t.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (t *Transport) serverRetries() int {
	if t.ServerRetries == 0 {
		return DefaultServerRetries
	}
	return max(t.ServerRetries, 0)
}

func (t *Transport) rateLimitRetries() int {
	if t.RateLimitRetries <= 0 {
		return DefaultRateLimitRetries
	}
	return t.RateLimitRetries
}

func (t *Transport) maxWait() time.Duration {
	if t.MaxWait <= 0 {
		return DefaultMaxWait
	}
	return t.MaxWait
}

// discard reads a little of the body, so the connection can be used
// again, and closes it.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
}
