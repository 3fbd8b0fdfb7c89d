package githubapi

import (
	"context"
	"crypto/rsa"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v62/github"
)

// DefaultAPIURL is GitHub's public REST API.
const DefaultAPIURL = "https://api.github.com"

// ParseKey reads a GitHub App's PEM RSA private key (PKCS#1 or PKCS#8).
func ParseKey(pem []byte) (*rsa.PrivateKey, error) {
	k, err := jwt.ParseRSAPrivateKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("the App private key: %w", err)
	}
	return k, nil
}

// Apps makes the clients of one GitHub App: App (authenticated with the
// App's JWT, for GET /app) and Installation (one client per installation,
// made once and kept). Each client has its own Transport from
// NewTransport, so the writes of one installation are paced on their own.
type Apps struct {
	AppID  int64
	Key    *rsa.PrivateKey
	APIURL string            // empty: DefaultAPIURL
	Base   http.RoundTripper // under the tokens; nil: http.DefaultTransport
	// NewTransport wraps the authenticating transport; nil: a Transport
	// with the defaults.
	NewTransport func(base http.RoundTripper) *Transport

	mu    sync.Mutex
	cache map[int64]*Installation
}

// Installation is the client of one installation of the App.
type Installation struct {
	Client *github.Client
	tokens *ghinstallation.Transport
}

func (a *Apps) apiURL() string {
	if a.APIURL == "" {
		return DefaultAPIURL
	}
	return a.APIURL
}

func (a *Apps) wrap(base http.RoundTripper) *Transport {
	if a.NewTransport == nil {
		return &Transport{Base: base}
	}
	return a.NewTransport(base)
}

func (a *Apps) appsTransport() *ghinstallation.AppsTransport {
	base := a.Base
	if base == nil {
		base = http.DefaultTransport
	}
	atr := ghinstallation.NewAppsTransportFromPrivateKey(base, a.AppID, a.Key)
	atr.BaseURL = strings.TrimRight(a.apiURL(), "/")
	return atr
}

// App returns a client that authenticates as the App (JWT).
func (a *Apps) App() (*github.Client, error) {
	return NewClient(a.apiURL(), "", a.wrap(a.appsTransport()))
}

// Installation returns the client of installation id, made at the first
// call.
func (a *Apps) Installation(id int64) (*Installation, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if in, ok := a.cache[id]; ok {
		return in, nil
	}
	itr := ghinstallation.NewFromAppsTransport(a.appsTransport(), id)
	gh, err := NewClient(a.apiURL(), "", a.wrap(itr))
	if err != nil {
		return nil, err
	}
	in := &Installation{Client: gh, tokens: itr}
	if a.cache == nil {
		a.cache = map[int64]*Installation{}
	}
	a.cache[id] = in
	return in, nil
}

// Token returns a valid installation token, for git. It never goes into
// a log line or an error: the error has tokens removed (RedactTokens).
func (in *Installation) Token(ctx context.Context) (string, error) {
	t, err := in.tokens.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("get an installation token: %s", RedactTokens(err.Error()))
	}
	return t, nil
}

// RedactTokens replaces anything in s that looks like a GitHub token
// (ghs_, ghp_, gho_, ghu_, github_pat_) with "[token]".
func RedactTokens(s string) string {
	for _, p := range []string{"ghs_", "ghp_", "gho_", "ghu_", "github_pat_"} {
		for {
			i := strings.Index(s, p)
			if i < 0 {
				break
			}
			j := i + len(p)
			for j < len(s) && (s[j] == '_' || s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			s = s[:i] + "[token]" + s[j:]
		}
	}
	return s
}
