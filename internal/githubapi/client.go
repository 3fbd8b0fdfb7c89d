package githubapi

import (
	"errors"
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

// StatusOf returns the HTTP status of a GitHub API error, or 0.
func StatusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) && ab.Response != nil {
		return ab.Response.StatusCode
	}
	return 0
}

// IsForbidden reports whether err is a 403 that is not a rate limit: the
// token may not write, as for a pull request from a fork.
func IsForbidden(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden &&
		!strings.Contains(strings.ToLower(er.Message), "rate limit")
}
