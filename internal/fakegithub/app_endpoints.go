package fakegithub

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// AppServer is the fake with the endpoints of a GitHub App: its auth
// checks the App's JWT (RS256, signed with the App's key, iss = the App
// id, not expired) on /app paths, it answers GET /app, and it keeps the
// permission of collaborators for
// GET /repos/{o}/{r}/collaborators/{u}/permission.
type AppServer struct {
	*Server
	AppID int64
	Slug  string

	pmu   sync.Mutex
	perms map[string]string // "owner/repo user" -> admin, write, read, none
}

// NewApp starts the fake for the App appID whose private key matches key.
func NewApp(tb testing.TB, appID int64, key *rsa.PublicKey) *AppServer {
	tb.Helper()
	s := New(tb)
	a := &AppServer{Server: s, AppID: appID, Slug: strings.TrimSuffix(s.AppLogin, "[bot]"), perms: map[string]string{}}
	s.mu.Lock()
	s.app = &appAuth{id: appID, key: key}
	s.mu.Unlock()
	s.mux.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{user}/permission", a.permission)
	s.mux.HandleFunc("GET /app", a.getApp)
	return a
}

// appAuth is what the fake needs to check App JWTs.
type appAuth struct {
	id  int64
	key *rsa.PublicKey
}

// isAppPath reports whether a path takes the App's JWT instead of a token.
func isAppPath(p string) bool { return p == "/app" || strings.HasPrefix(p, "/app/") }

// SetPermission sets the permission of user on repo (owner/name):
// "admin", "maintain", "write", "read" or "none". Unknown users have
// "read".
func (a *AppServer) SetPermission(repo, user, perm string) {
	a.pmu.Lock()
	a.perms[repo+" "+user] = perm
	a.pmu.Unlock()
}

// checkJWT returns why the token is not a valid JWT of the App, or "".
func (a *appAuth) checkJWT(tok string, now time.Time) string {
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
		return "A JSON web token could not be decoded"
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
	if iss != strconv.FormatInt(a.id, 10) {
		return "Integration not found"
	}
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
	u := a.userJSON(user)
	u["role_name"] = p
	u["permissions"] = map[string]any{"admin": p == "admin", "maintain": p == "admin" || p == "maintain",
		"push": p != "read" && p != "none", "triage": p != "none", "pull": p != "none"}
	writeJSON(w, http.StatusOK, map[string]any{"permission": legacy, "role_name": p, "user": u})
}

func (a *AppServer) getApp(w http.ResponseWriter, _ *http.Request) {
	app := a.appJSON(a.AppID, a.Slug)
	app["installations_count"] = 1
	writeJSON(w, http.StatusOK, app)
}
