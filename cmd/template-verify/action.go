package main

import (
	"context"
	"fmt"
	"github.com/formula-code/template-verify/internal/sandbox"
	"io"

	"github.com/formula-code/template-verify/action"
	"github.com/formula-code/template-verify/internal/secrets"
)

const actionUsage = `Usage: template-verify action

Runs as the GitHub Action (see action.yml). It takes no arguments: it reads
the inputs from INPUT_* variables, the event named by GITHUB_EVENT_NAME from
GITHUB_EVENT_PATH, and the checkout from GITHUB_WORKSPACE. The events:

  pull_request   verifies the pull request and publishes the check runs, the
                 gate and the comment (from a fork, whose token can only
                 read: the job summary and a report for the publisher)
  merge_group    verifies the merge queue's head commit; no comment
  workflow_run   publishes the report artifact (input report) of a fork's
                 pull_request run; the fork's own report can fail the gate
                 but never pass it

Exit status: 0 passed, 1 a conclusion in fail-on or publishing failed,
2 bad input (environment, event file, inputs or configuration).
`

func cmdAction(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(stdout, actionUsage)
			return exitPass
		}
		fmt.Fprintf(stderr, "template-verify action: unexpected argument %q\n\n%s", args[0], actionUsage)
		return exitUsage
	}
	// The sandbox comes from TEMPLATE_VERIFY_SANDBOX (the step's env),
	// passed down in ctx.
	mode, ok := sandboxMode("action", "", stderr)
	if !ok {
		return exitUsage
	}
	ctx, err := sandbox.WithMode(ctx, mode)
	if err != nil {
		fmt.Fprintf(stderr, "template-verify action: %v\n", err)
		return exitUsage
	}
	// The inputs and GITHUB_TOKEN come through secrets.Getenv: main moved
	// the tokens out of the environment that children could read.
	return action.Run(ctx, action.Options{Stdout: stdout, Getenv: secrets.Getenv})
}
