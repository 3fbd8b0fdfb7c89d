package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/formula-code/template-verify/checks"
)

// outputFlags are the flags that run and demo share: report format,
// progress lines, logging and check selection.
type outputFlags struct {
	format   *string
	progress *string
	verbose  *bool
	only     *string
}

func addOutputFlags(fs *flag.FlagSet) outputFlags {
	return outputFlags{
		format:   fs.String("format", "markdown", "report format: markdown, json or text"),
		progress: fs.String("progress", "auto", "progress lines on stderr: auto (on a terminal), always or never"),
		verbose:  fs.Bool("v", false, "log debug lines on stderr"),
		only:     fs.String("only", "", "run only these checks (comma-separated, for example render,restore)"),
	}
}

// parse parses args and checks what the shared flags allow; it prints the
// problem and returns false on a usage error.
func (o outputFlags) parse(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "template-verify %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	if !validFormat(*o.format) {
		fmt.Fprintf(stderr, "template-verify %s: unknown format %q (want markdown, json or text)\n", fs.Name(), *o.format)
		return false
	}
	return true
}

func (o outputFlags) checks() []string                  { return splitList(*o.only) }
func (o outputFlags) log(stderr io.Writer) *slog.Logger { return logger(stderr, *o.verbose) }
func (o outputFlags) progressTo(stderr io.Writer) checks.Progress {
	return progressFor(*o.progress, stderr)
}
