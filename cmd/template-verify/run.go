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
	descPath := fs.String("description", "", "a file with the PR description (markdown) for the description check")
	out := addOutputFlags(fs)
	if !out.parse(fs, args, stderr) {
		return exitUsage
	}
	if *base == "" {
		fmt.Fprintln(stderr, "template-verify run: --base is required")
		return exitUsage
	}
	desc, err := readDescription(*descPath)
	if err != nil {
		fmt.Fprintln(stderr, "template-verify run:", err)
		return exitUsage
	}
	rep, err := verify.Run(ctx, verify.Options{
		RepoDir:     *repo,
		Base:        *base,
		Head:        *head,
		ConfigPath:  *configPath,
		Only:        out.checks(),
		Progress:    out.progressTo(stderr),
		Log:         out.log(stderr),
		Description: desc,
	})
	if err != nil {
		return verifyError(err, stderr)
	}
	return output(rep, *out.format, stdout, stderr)
}
