// Package app is template-verify as a GitHub App: `template-verify serve`.
//
// The webhook handler checks the X-Hub-Signature-256 of the raw body
// before anything else, drops deliveries it has seen (X-GitHub-Delivery),
// turns handled events into jobs, stores them in a bbolt file and answers
// at once. An announcer finds the pull request, decides whether its code
// may run, and creates a queued check run "template-verify" so that the
// pull request shows it at once. A bounded pool of workers then clones
// the base and head with the installation token, runs the verification
// and publishes the same check runs, comment and gate as the Action,
// through the same publish.Session. ListenAndServe is the server's whole
// life: listen, serve, and on a stop drain the running verifications
// before it shuts down.
//
// A pull request from a fork, or from an author without write access,
// gets a neutral check run that says how to start the verification: a
// maintainer's `/template-verify` comment. None of its code runs before
// that.
//
// Accepted work survives a restart: at start-up the server runs again
// what it accepted but did not finish, and concludes the check runs that
// the stopped run left open. A new push to a pull request cancels the
// verification of the older head.
package app
