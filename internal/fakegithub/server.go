package fakegithub

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultLogin is the login of a token the server was not told about:
// the GitHub Actions bot, as for the Action's GITHUB_TOKEN.
const DefaultLogin = "github-actions[bot]"

// Token is what the server knows of one token.
type Token struct {
	Login    string
	ReadOnly bool // writes get 403 "Resource not accessible by integration"
	// Installation marks a GitHub App installation token: GET /user gets 403.
	Installation bool
	// AppID and AppSlug name the App of an installation token: check
	// runs made with it carry that App. Zero: the App of NewApp, else
	// GitHub Actions.
	AppID   int64
	AppSlug string
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   []byte
	// JSON is the body decoded as a JSON object, or nil.
	JSON map[string]any
	// Token is the token of the Authorization header.
	Token string
	// Status is the status the server answered.
	Status int
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the API, without a trailing slash.
	URL string
	// AppLogin is the login of installation tokens made by
	// POST /app/installations/{id}/access_tokens.
	AppLogin string

	srv *httptest.Server
	mux *http.ServeMux

	mu        sync.Mutex
	now       func() time.Time
	nextID    int64
	tokens    map[string]Token
	strict    bool // only known tokens
	runs      map[int64]*checkRun
	runOrder  []int64
	comments  []*comment
	pulls     map[string]*Pull
	faults    []*fault
	requests  []Request
	remaining int
	app       *appAuth               // set by NewApp
	manifests map[string]ManifestApp // codes of AddManifestCode
	suites    map[string]int64       // check suite ids by repo, head and App
	contract  *contractCheck         // nil: FAKEGITHUB_CONTRACT=off
}

// New starts a server on loopback and stops it when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{
		AppLogin:  "template-verify[bot]",
		now:       time.Now,
		tokens:    map[string]Token{},
		runs:      map[int64]*checkRun{},
		pulls:     map[string]*Pull{},
		remaining: 5000,
		mux:       http.NewServeMux(),
	}
	s.routes()
	s.contract = newContractCheck(tb)
	// Cleanups run last first: the report waits for Close, which waits
	// for the requests under way.
	tb.Cleanup(func() { s.contract.report(tb) })
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// SetNow sets the clock of timestamps and of the rate-limit reset header.
func (s *Server) SetNow(now func() time.Time) {
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

// AddToken tells the server about a token. Until the first AddToken,
// every non-empty token is a write token of DefaultLogin; after it, only
// known tokens (and installation tokens the server made) are.
func (s *Server) AddToken(token string, t Token) {
	s.mu.Lock()
	s.strict = true
	s.tokens[token] = t
	s.mu.Unlock()
}

// Requests returns a copy of every request so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Writes returns the recorded POST, PATCH, PUT and DELETE requests.
func (s *Server) Writes() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			out = append(out, r)
		}
	}
	return out
}

// ClearRequests forgets the recorded requests; the state stays.
func (s *Server) ClearRequests() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// serve records the request, answers a fault if one is due, checks the
// token, then routes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body, Token: tokenOf(r)}
	if len(bytes.TrimSpace(body)) > 0 {
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			rec.JSON = m
		}
	}
	answer := &recorder{ResponseWriter: w}
	sw := &statusWriter{ResponseWriter: answer}
	s.rateHeaders(sw.Header())
	s.mu.Lock()
	i := len(s.requests)
	s.requests = append(s.requests, rec)
	f := s.takeFault(r.Method)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.requests[i].Status = sw.status
		s.mu.Unlock()
		s.contract.check(rec.Method, rec.Path, rec.Query, body, cmp.Or(sw.status, http.StatusOK), answer.body)
	}()
	if f != nil {
		f.write(sw)
		return
	}
	tok, why := s.auth(r)
	if why != "" {
		writeError(sw, http.StatusUnauthorized, why)
		return
	}
	if tok.ReadOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(sw, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		writeError(sw, http.StatusNotFound, "Not Found")
		return
	}
	s.mux.ServeHTTP(sw, r.WithContext(withToken(r.Context(), tok)))
}

// auth finds the token of the request, or says why it is refused. The
// /app paths take a JWT: checked against the App's key when NewApp made
// the server, else any three-part token.
func (s *Server) auth(r *http.Request) (Token, string) {
	const bad = "Bad credentials"
	t := tokenOf(r)
	if t == "" && isManifestPath(r.URL.Path) {
		return Token{}, "" // the code is the credential
	}
	if t == "" {
		return Token{}, "Requires authentication"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if isAppPath(r.URL.Path) {
		switch {
		case s.app != nil:
			if why := s.app.checkJWT(t, s.now()); why != "" {
				return Token{}, why
			}
		case strings.Count(t, ".") != 2:
			return Token{}, "A JSON web token could not be decoded"
		}
		return Token{Login: s.AppLogin}, ""
	}
	if tok, ok := s.tokens[t]; ok {
		return tok, ""
	}
	if s.strict {
		return Token{}, bad
	}
	return Token{Login: DefaultLogin}, ""
}

func tokenOf(r *http.Request) string {
	h := r.Header.Get("Authorization")
	for _, p := range []string{"Bearer ", "bearer ", "token "} {
		if strings.HasPrefix(h, p) {
			return strings.TrimSpace(h[len(p):])
		}
	}
	return ""
}

// rateHeaders sets the primary rate-limit headers of a normal answer. The
// remaining count stops at 1, so go-github never refuses a request on its
// own in a test.
func (s *Server) rateHeaders(h http.Header) {
	s.mu.Lock()
	s.remaining = max(s.remaining-1, 1)
	rem, reset := s.remaining, s.now().Add(time.Hour).Unix()
	s.mu.Unlock()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(rem))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-rem))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	h.Set("X-RateLimit-Resource", "core")
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}
