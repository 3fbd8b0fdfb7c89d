package fakegithub

import (
	"fmt"
	"net/http"
	"time"
)

// getUser answers GET /user with the token's login. Installation tokens
// get 403, as on GitHub.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	t := tokenFrom(r.Context())
	if t.Installation {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	writeJSON(w, http.StatusOK, s.privateUserJSON(t.Login))
}

// createInstallationToken answers POST /app/installations/{id}/access_tokens
// for a request with an App JWT: a new installation token that the server
// then knows, valid for one hour.
func (s *Server) createInstallationToken(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	tok := fmt.Sprintf("ghs_fake%dx%d", id, s.id())
	s.tokens[tok] = Token{Login: s.AppLogin, Installation: true}
	expires := s.now().Add(time.Hour).UTC().Format(time.RFC3339)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           expires,
		"permissions":          map[string]string{"checks": "write", "pull_requests": "write", "contents": "read"},
		"repository_selection": "all",
	})
}

// routes registers the endpoints.
func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("POST /repos/{owner}/{repo}/check-runs", s.createCheckRun)
	m.HandleFunc("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	m.HandleFunc("GET /repos/{owner}/{repo}/check-runs/{id}", s.getCheckRun)
	m.HandleFunc("GET /repos/{owner}/{repo}/check-runs/{id}/annotations", s.listAnnotations)
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", s.listRunsForRef)
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{sha}/pulls", s.pullsForCommit)
	// GET issues/{number}/comments and GET issues/comments/{id} overlap as
	// patterns, so one handler tells them apart.
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{a}/{b}", s.getIssuePath)
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	m.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	m.HandleFunc("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.deleteComment)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	m.HandleFunc("GET /user", s.getUser)
	m.HandleFunc("POST /app/installations/{id}/access_tokens", s.createInstallationToken)
}

// getIssuePath routes GET issues/{number}/comments and issues/comments/{id}.
func (s *Server) getIssuePath(w http.ResponseWriter, r *http.Request) {
	a, b := r.PathValue("a"), r.PathValue("b")
	switch {
	case a == "comments":
		r.SetPathValue("id", b)
		s.getComment(w, r)
	case b == "comments":
		r.SetPathValue("number", a)
		s.listComments(w, r)
	default:
		writeError(w, http.StatusNotFound, "Not Found")
	}
}
