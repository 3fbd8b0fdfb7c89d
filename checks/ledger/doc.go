// Package ledger is the release ledger: for a pull request from a release
// branch into the branch it left (by default release/* into main), it lists
// every pull request merged into the release branch since it left, each
// with its verification at the head it merged, and fails when one is
// missing, red, or was verified on another head than the one merged.
//
// The verifications come from a Source: the check runs of GitHub's API in
// the Action and the App (GitHub), or a re-verification of each merge on
// this machine (Local, used by template-verify ledger and run).
package ledger
