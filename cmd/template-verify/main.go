// Command template-verify verifies pull requests that change benchmark task
// templates. This package only parses flags and wires the parts together.
//
//	template-verify run  --repo DIR --base REV --head REV [--format markdown|json|text]
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
	"strings"
	"syscall"

	"github.com/formula-code/template-verify/checks"
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

func main() {
	if err := startup(); err != nil {
		fmt.Fprintf(os.Stderr, "template-verify: %v\n", err)
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
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

func validFormat(f string) bool {
	switch f {
	case "markdown", "md", "json", "text":
		return true
	}
	return false
}

// progressFor returns progress lines on stderr (a line when a check
// starts and ends, and one every few seconds while it runs) when stderr
// is a terminal or when asked, else nil.
func progressFor(mode string, stderr io.Writer) checks.Progress {
	switch mode {
	case "always":
		return newTickProgress(stderr)
	case "never":
		return nil
	}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return newTickProgress(stderr)
		}
	}
	return nil
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
