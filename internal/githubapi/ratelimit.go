package githubapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GitHub's rate-limit headers.
const (
	hdrRetryAfter = "Retry-After"
	hdrRemaining  = "X-Ratelimit-Remaining"
	hdrReset      = "X-Ratelimit-Reset"
)

type responseKind int

const (
	plainResponse responseKind = iota
	rateLimited
	serverError
)

// classify says whether resp asks for a retry, and for rate limits how
// long to wait first.
func (t *Transport) classify(resp *http.Response) (responseKind, time.Duration) {
	switch {
	case resp.StatusCode >= 500 && resp.StatusCode <= 599:
		return serverError, 0
	case resp.StatusCode == http.StatusTooManyRequests:
		return rateLimited, t.rateLimitWait(resp)
	case resp.StatusCode == http.StatusForbidden && isRateLimit403(resp):
		return rateLimited, t.rateLimitWait(resp)
	}
	return plainResponse, 0
}

// isRateLimit403 tells a 403 rate limit from a 403 that will not change
// (a read-only token, a missing permission). A rate limit has Retry-After,
// x-ratelimit-remaining: 0, or says "rate limit" (or "abuse") in its
// message.
func isRateLimit403(resp *http.Response) bool {
	if resp.Header.Get(hdrRetryAfter) != "" || resp.Header.Get(hdrRemaining) == "0" {
		return true
	}
	msg := strings.ToLower(string(peekBody(resp, 1<<16)))
	return strings.Contains(msg, "rate limit") || strings.Contains(msg, "abuse detection")
}

// rateLimitWait is how long to wait after a rate limit: Retry-After, else
// until x-ratelimit-reset when x-ratelimit-remaining is 0, else 60 s.
func (t *Transport) rateLimitWait(resp *http.Response) time.Duration {
	now := t.clock().Now()
	if d, ok := parseRetryAfter(resp.Header.Get(hdrRetryAfter), now); ok {
		return d
	}
	if resp.Header.Get(hdrRemaining) == "0" {
		if reset, ok := parseReset(resp.Header.Get(hdrReset)); ok {
			// The reset is in whole seconds; wait at least one second.
			return max(reset.Sub(now), time.Second)
		}
	}
	return DefaultRateLimitWait
}

// parseRetryAfter reads Retry-After as seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// parseReset reads x-ratelimit-reset, in seconds since the Unix epoch.
func parseReset(v string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// peekBody reads up to n bytes of the body and puts them back.
func peekBody(resp *http.Response, n int64) []byte {
	if resp.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, n))
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	return b
}

type readCloser struct {
	io.Reader
	io.Closer
}

// handUp removes the headers that would make go-github refuse later
// requests on its own (see Transport).
func handUp(resp *http.Response) *http.Response {
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests {
		resp.Header.Del(hdrRetryAfter)
		resp.Header.Del(hdrReset)
	}
	if resp.Header.Get(hdrRemaining) == "0" {
		resp.Header.Del(hdrReset)
	}
	return resp
}

func errNoRewind(req *http.Request) error {
	return fmt.Errorf("%s %s: the request body cannot be sent again", req.Method, req.URL.Path)
}
