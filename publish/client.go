package publish

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"
)

// NewClient returns a go-github client for the REST API at baseURL (for
// example the value of GITHUB_API_URL; empty means GitHub's public API)
// that sends token and makes every call through t. A nil t is a new
// Transport on the wall clock.
func NewClient(baseURL, token string, t *Transport) (*github.Client, error) {
	if t == nil {
		t = &Transport{}
	}
	c := github.NewClient(&http.Client{Transport: t})
	if token != "" {
		c = c.WithAuthToken(token)
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("GitHub API URL %q: want an http or https URL", baseURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		c.BaseURL = u
	}
	return c, nil
}
