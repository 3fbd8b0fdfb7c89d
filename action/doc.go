// Package action is the GitHub Action of template-verify: it reads the
// runner's environment (GITHUB_* variables, the inputs, the
// pull_request event file), verifies the pull request in the workspace,
// and publishes the report as check runs, one comment and the gate, plus
// the job summary and the step outputs.
//
// On a pull request from a fork the token can only read. The Action then
// makes no write call at all: the report goes to the job summary and the
// findings to workflow-command annotations (GitHub shows at most 10 errors
// and 10 warnings a step, so the most useful come first).
//
// Run takes its environment, writers and clock as options, so tests run it
// without a runner, against the fake GitHub server.
package action
