// Package githubapi makes the clients of GitHub's REST API that the Action,
// the App and package publish use: NewClient for a token, Apps for a GitHub
// App (its JWT client and one cached client per installation).
//
// Every call goes through Transport, an http.RoundTripper that waits out
// rate limits (Retry-After, then x-ratelimit-reset, then 60 s), retries
// server errors with backoff, and spaces writes about one second apart.
// All waits go through a Clock, so tests run without real waits.
package githubapi
