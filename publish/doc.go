// Package publish puts one verification report on GitHub: one check run per
// check, a gate check run, and one pull-request comment that is edited in
// place.
//
// Session is the one pipeline of the Action and the App: start the check
// runs, verify (a function the caller injects, so publish does not import
// verify), complete the runs and the gate, publish the comment. Its mode
// is write, read-only (a token that can only read: no write call) or
// workflow_run (publish a report another job made, which may be a fork's
// own). It is fail-closed: an error or a panic in the verification
// concludes every run and the gate as failure with the reason, and it
// finishes on a context that outlives a cancel, so no run stays in
// progress.
//
// Its client comes from internal/githubapi, whose transport waits out rate
// limits, retries server errors and paces writes. The words of the runs
// and the comment come from package report, the gate's decision from
// package checks.
package publish
