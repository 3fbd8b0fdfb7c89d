package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/scratch"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	rep, format, code := demoReport(ctx, args, stderr)
	if rep == nil {
		return code
	}
	return output(rep, format, stdout, stderr)
}

// demoReport builds the example and verifies the head the flags in args
// choose. It returns the report and the output format, or a nil report
// and the exit code of a usage or verification error.
func demoReport(ctx context.Context, args []string, stderr io.Writer) (*report.Report, string, int) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bad := fs.Bool("bad", false, "verify the wrong pull request of the example")
	head := fs.String("head", "", "verify this head of the example: "+fmt.Sprint(examples.HeadNames()))
	keep := fs.String("keep", "", "build the example repository in this folder and keep it")
	out := addOutputFlags(fs)
	if !out.parse(fs, args, stderr) {
		return nil, "", exitUsage
	}
	name, cmdline := examples.HeadGood, "template-verify demo"
	switch {
	case *bad && *head != "":
		fmt.Fprintln(stderr, "template-verify demo: give --bad or --head, not both")
		return nil, "", exitUsage
	case *bad:
		name, cmdline = examples.HeadBad, "template-verify demo --bad"
	case *head != "":
		if !slices.Contains(examples.HeadNames(), *head) {
			fmt.Fprintf(stderr, "template-verify demo: unknown head %q (want one of %v)\n", *head, examples.HeadNames())
			return nil, "", exitUsage
		}
		name, cmdline = *head, "template-verify demo --head "+*head
	}
	dir := *keep
	if dir == "" {
		// The example is small: in RAM where there is room (internal/scratch).
		tmp, err := scratch.MkdirTemp("", "template-verify-demo-*")
		if err != nil {
			fmt.Fprintf(stderr, "template-verify demo: %v\n", err)
			return nil, "", exitFail
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	built, err := examples.Build(ctx, dir)
	if err != nil {
		fmt.Fprintf(stderr, "template-verify demo: build the example repository: %v\n", err)
		return nil, "", exitFail
	}
	rep, err := verify.Run(ctx, verify.Options{
		RepoDir:  built.Dir,
		Base:     examples.BaseBranchOf(name), // main, or the head a .base file names
		Head:     name,
		RepoName: "datasmith-mini (bundled example)",
		Command:  cmdline,
		Only:     out.checks(),
		Progress: out.progressTo(stderr),
		Log:      out.log(stderr),
		Sandbox:  *out.sandbox,
		CacheDir: *out.cacheDir,
	})
	if err != nil {
		return nil, "", verifyError(err, stderr)
	}
	if *keep != "" {
		fmt.Fprintf(stderr, "The example repository is in %s (base: %s, head: %s).\n", built.Dir, examples.BaseBranchOf(name), name)
	}
	return rep, *out.format, exitPass
}
