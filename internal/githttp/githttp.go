// Package githttp serves a folder of git repositories over the smart HTTP
// protocol for tests: `git http-backend` through net/http/cgi on a
// loopback httptest server. Like GitHub, it lets clients fetch any commit
// by its sha, and it can require an Authorization header.
package githttp

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// Request is one recorded request.
type Request struct {
	Method        string
	Path          string
	Query         string
	Authorization string
	Status        int
}

// Server serves the repositories under Root: the repository in
// Root/NAME (a bare repository or a work tree with .git) is at URL/NAME.
type Server struct {
	URL     string
	Root    string
	srv     *httptest.Server
	backend *cgi.Handler
	mu      sync.Mutex
	reqs    []Request
	auth    string // see SetAuth
	nice    int    // see SetNice
}

// SetNice runs git http-backend, and so the upload-pack and pack-objects
// it starts, at this nice level (0 to 19; 0: the test's own). A load
// benchmark uses it to stand in for GitHub's git servers, which do not
// share the App's CPU. It is safe to call while the server runs.
func (s *Server) SetNice(level int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nice = level
}

// SetAuth makes every request need this whole Authorization header; other
// requests get 401. An empty value turns the check off. It is safe to call
// while the server runs.
func (s *Server) SetAuth(header string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth = header
}

// Handler returns an http.Handler that serves root with git http-backend.
// It fails when git is not on PATH.
func Handler(root string) (*cgi.Handler, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	return &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_CONFIG_COUNT=2",
			"GIT_CONFIG_KEY_0=uploadpack.allowAnySHA1InWant",
			"GIT_CONFIG_VALUE_0=true",
			"GIT_CONFIG_KEY_1=safe.directory",
			"GIT_CONFIG_VALUE_1=*",
		},
		InheritEnv: []string{"PATH"},
	}, nil
}

// Start serves root on loopback until the test ends.
func Start(tb testing.TB, root string) *Server {
	tb.Helper()
	h, err := Handler(root)
	if err != nil {
		tb.Fatalf("githttp: %v", err)
	}
	s := &Server{Root: root, backend: h}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// ServeHTTP records the request, checks the Authorization header when
// SetAuth set one, and passes the request to git http-backend.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Authorization: r.Header.Get("Authorization")}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		rec.Status = sw.status
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
	}()
	s.mu.Lock()
	auth, level := s.auth, s.nice
	s.mu.Unlock()
	if auth != "" && rec.Authorization != auth {
		sw.Header().Set("WWW-Authenticate", `Basic realm="githttp"`)
		http.Error(sw, "authentication required", http.StatusUnauthorized)
		return
	}
	backend := s.backend
	if level > 0 {
		if path, err := exec.LookPath("nice"); err == nil {
			niced := *s.backend
			niced.Path, niced.Args = path, append([]string{"-n", strconv.Itoa(level), s.backend.Path}, s.backend.Args...)
			backend = &niced
		}
	}
	backend.ServeHTTP(sw, r)
}

// Requests returns a copy of the recorded requests.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}
