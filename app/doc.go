// Package app is template-verify as a GitHub App: `template-verify serve`.
//
// The webhook handler checks the X-Hub-Signature-256 of the raw body
// before anything else, drops deliveries it has seen (X-GitHub-Delivery),
// turns handled events into River jobs (github.com/riverqueue/river) in
// the same transaction as the delivery id, and answers at once. The
// database is a SQLite file in the data folder by default, or Postgres
// (Config.DatabaseURL) shared by several replicas. An announce job finds
// the pull request, decides whether its code may run, and creates a
// queued check run "template-verify" so that the pull request shows it
// at once; it queues one verification job per head (River's unique
// jobs). A bounded pool of workers on each replica then clones
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
// Accepted work survives a restart, a killed replica and a database
// outage shorter than the retry window: a restart takes up its own jobs
// at once (its replica id is kept in the data folder), the others rescue
// a dead replica's jobs through the heartbeat, and the job runs again
// (or, after MaxAttempts runs the process did not survive, concludes as
// failure), completing the check runs that the stopped run made; a
// finished verification is stored before it is published, so that a
// kill while publishing publishes it again and verifies nothing again. A new push to a pull request cancels the verification of the
// older head on whichever replica runs it.
package app
