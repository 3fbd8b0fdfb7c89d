package fakegithub

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Fault is an answer the server gives instead of the real one.
type Fault struct {
	Status  int
	Message string
	// Header is added to the answer.
	Header http.Header
	// Errors is the "errors" list of a 422.
	Errors []map[string]string
	// DocumentationURL of the error body; empty: the REST docs.
	DocumentationURL string
	// Method limits the fault to requests with this method; empty: any.
	Method string
	// Skip lets this many matching requests through before the fault.
	Skip int
}

// SecondaryRateLimit is GitHub's 403 for a secondary rate limit, with a
// Retry-After header when retryAfter > 0.
func SecondaryRateLimit(retryAfter time.Duration) Fault {
	f := Fault{
		Status:           http.StatusForbidden,
		Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		Header:           http.Header{},
	}
	if retryAfter > 0 {
		f.Header.Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	}
	return f
}

// PrimaryRateLimit is GitHub's 403 when the hourly limit is used up:
// x-ratelimit-remaining 0 and x-ratelimit-reset at reset.
func PrimaryRateLimit(reset time.Time) Fault {
	h := http.Header{}
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Used", "5000")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	return Fault{
		Status:           http.StatusForbidden,
		Message:          "API rate limit exceeded for installation ID 1.",
		DocumentationURL: "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting",
		Header:           h,
	}
}

// ServerError is a 5xx such as 502 Bad Gateway.
func ServerError(status int) Fault {
	return Fault{Status: status, Message: "Server Error"}
}

// Unprocessable is a 422 Validation Failed with one custom error.
func Unprocessable(message string) Fault {
	return Fault{Status: http.StatusUnprocessableEntity, Message: "Validation Failed",
		Errors: []map[string]string{{"resource": "Fake", "code": "custom", "message": message}}}
}

// Forbidden is a 403 that no wait changes.
func Forbidden() Fault {
	return Fault{Status: http.StatusForbidden, Message: "Resource not accessible by integration"}
}

type fault struct {
	Fault
	left int
}

// FailNext answers the next n requests (that match f.Method) with f.
func (s *Server) FailNext(n int, f Fault) {
	s.mu.Lock()
	s.faults = append(s.faults, &fault{Fault: f, left: n})
	s.mu.Unlock()
}

// takeFault returns the fault due for a request, if any. s.mu is held.
func (s *Server) takeFault(method string) *fault {
	for i, f := range s.faults {
		if f.Method != "" && f.Method != method {
			continue
		}
		if f.Skip > 0 {
			f.Skip--
			return nil
		}
		f.left--
		if f.left <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return f
	}
	return nil
}

func (f *fault) write(w http.ResponseWriter) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Set(k, v)
		}
	}
	doc := f.DocumentationURL
	if doc == "" {
		doc = docsURL
	}
	body := map[string]any{"message": f.Message, "documentation_url": doc, "status": strconv.Itoa(f.Status)}
	if len(f.Errors) > 0 {
		body["errors"] = f.Errors
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(f.Status)
	_, _ = w.Write(b)
}
