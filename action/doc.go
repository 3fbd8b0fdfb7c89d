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
// On merge_group it verifies the merge queue's head commit against its
// base and publishes the check runs and the gate on it (no comment). On
// workflow_run it verifies nothing: it publishes the JSON report that a
// fork's pull_request run uploaded, on the head commit named by the event
// and the pull request the API finds for it, never where the report says.
//
// The comment-mode input says when the comment is published (by default
// only when a template changed or the comment exists).
//
// The Action decodes its event (go-github's event types), chooses the
// publish.Session mode (write; read-only for a fork or a token that may
// not write; workflow_run) and leaves the pipeline to the session.
//
// Run takes its environment, writers and clock as options, so tests run it
// without a runner, against the fake GitHub server.
package action
