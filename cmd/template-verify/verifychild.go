package main

import (
	"context"
	"io"
	"os"

	"github.com/formula-code/template-verify/verify"
	"github.com/formula-code/template-verify/verify/child"
)

// verifyChildCommand is the hidden subcommand that serve starts for each
// verification (child.Runner): it reads one child.Request on stdin and
// writes the report on stdout. It is in no usage text: only serve runs it.
const verifyChildCommand = "verify-child"

// cmdVerifyChild is verify-child: child.Serve with verify.Run.
func cmdVerifyChild(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	return child.Serve(ctx, stdin, stdout, stderr, verify.Run)
}

// childRunner is the runner serve gives the App: this binary's
// verify-child, with the default limits.
func childRunner() (*child.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &child.Runner{Command: []string{exe, verifyChildCommand}}, nil
}
