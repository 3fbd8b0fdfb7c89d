package app

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

	"github.com/formula-code/template-verify/publish"
)

// DefaultAPIURL is GitHub's public REST API.
const DefaultAPIURL = "https://api.github.com"

// installation is the cached client of one installation.
type installation struct {
	client *github.Client
	tokens *ghinstallation.Transport
}

// clients makes and caches one API client per installation. Each client
// has its own publish.Transport, so writes are paced per installation.
type clients struct {
	appID   int64
	key     *rsa.PrivateKey
	baseURL string
	base    http.RoundTripper
	newPub  func(base http.RoundTripper) *publish.Transport

	mu    sync.Mutex
	cache map[int64]*installation
}

// parseKey reads a PEM RSA private key (PKCS#1 or PKCS#8).
func parseKey(pem []byte) (*rsa.PrivateKey, error) {
	k, err := jwt.ParseRSAPrivateKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("the App private key: %w", err)
	}
	return k, nil
}

func (c *clients) get(id int64) (*installation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if in, ok := c.cache[id]; ok {
		return in, nil
	}
	atr := ghinstallation.NewAppsTransportFromPrivateKey(c.base, c.appID, c.key)
	atr.BaseURL = strings.TrimRight(c.baseURL, "/")
	itr := ghinstallation.NewFromAppsTransport(atr, id)
	gh, err := publish.NewClient(c.baseURL, "", c.newPub(itr))
	if err != nil {
		return nil, err
	}
	in := &installation{client: gh, tokens: itr}
	c.cache[id] = in
	return in, nil
}

// token returns a valid installation token for git. It never goes into a
// log line or an error.
func (in *installation) token(ctx context.Context) (string, error) {
	t, err := in.tokens.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("get an installation token: %s", redactAll(err.Error()))
	}
	return t, nil
}

// redactAll removes anything that looks like a GitHub token from s.
func redactAll(s string) string {
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

// appClient is a client that authenticates as the App (JWT), for GET /app.
func (c *clients) appClient() (*github.Client, error) {
	atr := ghinstallation.NewAppsTransportFromPrivateKey(c.base, c.appID, c.key)
	atr.BaseURL = strings.TrimRight(c.baseURL, "/")
	return publish.NewClient(c.baseURL, "", c.newPub(atr))
}
