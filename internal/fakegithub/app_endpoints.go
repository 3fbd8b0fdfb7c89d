package fakegithub

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// AppServer is the fake with the endpoints of a GitHub App: it checks
// the App's JWT (RS256, signed with the App's key, iss = the App id, not
// expired) on /app/ paths, answers GET /app, and keeps the permission of
// collaborators for GET /repos/{o}/{r}/collaborators/{u}/permission.
type AppServer struct {
	*Server
	AppID int64
	Slug  string

	key   *rsa.PublicKey
	pmu   sync.Mutex
	perms map[string]string // "owner/repo user" -> admin, write, read, none
}

// NewApp starts the fake for the App appID whose private key matches key.
func NewApp(tb testing.TB, appID int64, key *rsa.PublicKey) *AppServer {
	tb.Helper()
	s := New(tb)
	a := &AppServer{Server: s, AppID: appID, Slug: strings.TrimSuffix(s.AppLogin, "[bot]"), key: key, perms: map[string]string{}}
	s.mux.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{user}/permission", a.permission)
	s.srv.Close()
	s.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return a
}

// SetPermission sets the permission of user on repo (owner/name):
// "admin", "maintain", "write", "read" or "none". Unknown users have
// "read".
func (a *AppServer) SetPermission(repo, user, perm string) {
	a.pmu.Lock()
	a.perms[repo+" "+user] = perm
	a.pmu.Unlock()
}

// serve checks the JWT of /app/ requests before the fake sees them.
func (a *AppServer) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/app") {
		if msg := a.checkJWT(tokenOf(r)); msg != "" {
			a.mu.Lock()
			a.requests = append(a.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Token: tokenOf(r), Status: http.StatusUnauthorized})
			a.mu.Unlock()
			writeError(w, http.StatusUnauthorized, msg)
			return
		}
		if r.URL.Path == "/app" {
			// The fake's own auth knows only /app/ paths.
			a.mu.Lock()
			a.requests = append(a.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Token: tokenOf(r), Status: http.StatusOK})
			a.mu.Unlock()
			a.getApp(w, r)
			return
		}
	}
	a.Server.serve(w, r)
}

// checkJWT returns why the token is not a valid App JWT, or "".
func (a *AppServer) checkJWT(tok string) string {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "A JSON web token could not be decoded"
	}
	var head struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iss any   `json:"iss"`
		Exp int64 `json:"exp"`
		Iat int64 `json:"iat"`
	}
	if decodePart(parts[0], &head) != nil || decodePart(parts[1], &claims) != nil {
		return "A JSON web token could not be decoded"
	}
	if head.Alg != "RS256" {
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "A JSON web token could not be decoded"
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(a.key, crypto.SHA256, sum[:], sig) != nil {
		return "A JSON web token could not be decoded"
	}
	iss := ""
	switch v := claims.Iss.(type) {
	case string:
		iss = v
	case float64:
		iss = strconv.FormatInt(int64(v), 10)
	}
	if iss != strconv.FormatInt(a.AppID, 10) {
		return "Integration not found"
	}
	now := a.now()
	if claims.Exp == 0 || time.Unix(claims.Exp, 0).Before(now) || time.Unix(claims.Exp, 0).Sub(now) > 11*time.Minute {
		return "'Expiration time' claim ('exp') is too far in the future or in the past"
	}
	return ""
}

func decodePart(p string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (a *AppServer) permission(w http.ResponseWriter, r *http.Request) {
	user := r.PathValue("user")
	a.pmu.Lock()
	p, ok := a.perms[repoOf(r)+" "+user]
	a.pmu.Unlock()
	if !ok {
		p = "read"
	}
	legacy := p
	if p == "maintain" {
		legacy = "write"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"permission": legacy, "role_name": p,
		"user": map[string]any{"login": user, "type": userType(user)},
	})
}

func (a *AppServer) getApp(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"id": a.AppID, "slug": a.Slug, "name": a.Slug})
}
