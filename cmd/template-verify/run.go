package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/formula-code/template-verify/verify"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the git repository to verify")
	base := fs.String("base", "", "the base revision of the change (required)")
	head := fs.String("head", "HEAD", "the head revision of the change")
	configPath := fs.String("config", ".github/template-verify.yml", "the config file, as a path in the repository, read at head and base")
	format := fs.String("format", "markdown", "report format: markdown, json or text")
	progress := fs.String("progress", "auto", "progress lines on stderr: auto (on a terminal), always or never")
	verbose := fs.Bool("v", false, "log debug lines on stderr")
	only := fs.String("only", "", "run only these checks (comma-separated, for example render,restore)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "template-verify run: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *base == "" {
		fmt.Fprintln(stderr, "template-verify run: --base is required")
		return exitUsage
	}
	if !validFormat(*format) {
		fmt.Fprintf(stderr, "template-verify run: unknown format %q (want markdown, json or text)\n", *format)
		return exitUsage
	}
	rep, err := verify.Run(ctx, verify.Options{
		RepoDir:    *repo,
		Base:       *base,
		Head:       *head,
		ConfigPath: *configPath,
		Only:       splitList(*only),
		Progress:   progressFor(*progress, stderr),
		Log:        logger(stderr, *verbose),
	})
	if err != nil {
		return verifyError(err, stderr)
	}
	return output(rep, *format, stdout, stderr)
}
