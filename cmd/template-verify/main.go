// Command template-verify verifies pull requests that change benchmark task
// templates. This package only parses flags and wires the parts together.
//
//	template-verify run  --repo DIR --base REV --head REV [--format markdown|json|text|sarif]
//	template-verify demo [--bad | --head NAME] [--format ...] [--keep DIR]
//
// Exit status: 0 when every check passes (or nothing changed), 1 when a
// check fails, 2 for a usage or configuration error, 3 when no check fails
// but at least one did not run.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/secrets"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// Exit codes.
const (
	exitPass   = 0
	exitFail   = 1
	exitUsage  = 2
	exitNotRun = 3
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is empty, version prints the module version of the build info.
var version = ""

// revision is set at build time with -ldflags "-X main.revision=SHA" by a
// build that Go cannot stamp with vcs.revision itself: Go stamps a build
// in a git clone (go build, unless -buildvcs=false or GOFLAGS has it),
// but not one in a linked git worktree, whose .git is a file
// (golang/go#58218), nor one without .git (the Docker build).
var revision = ""

func main() {
	if err := startup(); err != nil {
		fmt.Fprintf(os.Stderr, "template-verify: %v\n", err)
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	// No process of the tool outlives it: the render workers that the
	// pool keeps for the next render end here, and are waited for.
	jinja.StopWorkers(5 * time.Second)
	os.Exit(code)
}

// startup runs first in main, before any process is started: it moves
// the tokens and keys out of the environment block that /proc shows to
// the processes of the same user (re-executing this binary when one is
// there). The code reads them through secrets.Lookup from then on.
func startup() error {
	return secrets.Hide()
}

// run dispatches a command line and returns the exit code. A new
// command is one entry of commands (help.go).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		return cmdHelp(ctx, args[1:], stdout, stderr)
	case "--version", "-version":
		return cmdVersion(ctx, args[1:], stdout, stderr)
	case verifyChildCommand:
		return cmdVerifyChild(ctx, os.Stdin, stdout, stderr)
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "template-verify: unknown command %q%s\n\n%s", args[0], didYouMean(args[0], commandNames()), usageText())
		return exitUsage
	}
	if c.run == nil {
		return cmdHelp(ctx, args[1:], stdout, stderr)
	}
	if wantsHelp(args[1:]) {
		writeHelp(ctx, c, stdout)
		return exitPass
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

// output writes the report in the chosen format and returns the exit code.
func output(rep *report.Report, format string, stdout, stderr io.Writer) int {
	var err error
	switch format {
	case "markdown", "md":
		var s string
		if s, err = rep.Markdown(); err == nil {
			_, err = io.WriteString(stdout, s)
		}
	case "json":
		var b []byte
		if b, err = rep.JSON(); err == nil {
			_, err = stdout.Write(append(b, '\n'))
		}
	case "text":
		_, err = io.WriteString(stdout, rep.Text())
	case "sarif":
		var b []byte
		if b, err = rep.SARIF(report.SARIFOptions{ToolVersion: toolVersion(), DocsURL: sarifDocsURL(os.Getenv)}); err == nil {
			_, err = stdout.Write(append(b, '\n'))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "template-verify: write the report: %v\n", err)
		return exitFail
	}
	return exitCode(rep.Overall)
}

func exitCode(c checks.Conclusion) int {
	switch {
	case c == checks.Success:
		return exitPass
	case c.Failed() || c == checks.Cancelled:
		return exitFail
	default:
		return exitNotRun
	}
}

// verifyError prints err and returns the exit code it stands for.
func verifyError(err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "template-verify: %v\n", err)
	var ue *verify.UsageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFail
}

// formats are the values of --format ("md" is also taken for markdown).
var formats = []string{"markdown", "json", "text", "sarif"}

func validFormat(f string) bool {
	return f == "md" || slices.Contains(formats, f)
}

// progressFor returns progress lines on stderr (a line when a check
// starts and ends, and one per running check every few seconds) when
// asked, or in auto mode when stderr is a terminal (every 5 s) or the run
// is in CI (every 15 s: getenv has CI or GITHUB_ACTIONS, as GitHub
// Actions, GitLab and most CI services set), else nil. getenv is
// os.Getenv outside tests.
func progressFor(mode string, stderr io.Writer, getenv func(string) string) checks.Progress {
	switch mode {
	case "always":
		return newTickProgress(stderr, progressEvery)
	case "never":
		return nil
	}
	if isTerminal(stderr) {
		return newTickProgress(stderr, progressEvery)
	}
	if inCI(getenv) {
		return newTickProgress(stderr, ciProgressEvery)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// inCI reports whether the environment is a CI run: CI set to anything
// but "false" or "0", or GITHUB_ACTIONS set.
func inCI(getenv func(string) string) bool {
	switch getenv("CI") {
	case "", "false", "0":
		return getenv("GITHUB_ACTIONS") != ""
	}
	return true
}

func logger(stderr io.Writer, verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
