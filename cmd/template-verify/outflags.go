package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/verify"
)

// outputFlags are the flags that run and demo share: report format,
// progress lines, logging and check selection.
type outputFlags struct {
	format   *string
	progress *string
	verbose  *bool
	only     *string
	sandbox  *string
	cacheDir *string
}

func addOutputFlags(fs *flag.FlagSet) outputFlags {
	return outputFlags{
		format:   fs.String("format", "markdown", "report format: markdown, json, text or sarif (SARIF 2.1.0, for code scanning and reviewdog)"),
		progress: fs.String("progress", "auto", "progress lines on stderr: auto (on a terminal every 5 s, in CI every 15 s), always or never"),
		verbose:  fs.Bool("v", false, "log debug lines on stderr"),
		only:     fs.String("only", "", "run only these checks (comma-separated, for example render,restore)"),
		sandbox:  fs.String("sandbox", "", sandboxUsage),
		cacheDir: fs.String("cache-dir", "", "a folder that keeps the results of work whose inputs did not change (render recordings, restore and pytest results) for later runs to reuse; empty: "+resultcache.Env+", else nothing is kept"),
	}
}

// parse parses args and checks what the shared flags allow; it prints the
// problem and returns false on a usage error.
func (o outputFlags) parse(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	if !parseFlags(fs, args, stderr) {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "template-verify %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	if !validFormat(*o.format) {
		fmt.Fprintf(stderr, "template-verify %s: unknown format %q: --format is one of %s%s\n", fs.Name(), *o.format, strings.Join(formats, ", "), didYouMean(*o.format, formats))
		return false
	}
	if !slices.Contains(progressModes, *o.progress) {
		fmt.Fprintf(stderr, "template-verify %s: unknown progress mode %q: --progress is one of %s%s\n", fs.Name(), *o.progress, strings.Join(progressModes, ", "), didYouMean(*o.progress, progressModes))
		return false
	}
	mode, ok := sandboxMode(fs.Name(), *o.sandbox, stderr)
	if !ok {
		return false
	}
	*o.sandbox = mode
	if *o.cacheDir == "" {
		*o.cacheDir = os.Getenv(resultcache.Env)
	}
	if *o.cacheDir != "" {
		abs, err := filepath.Abs(*o.cacheDir)
		if err != nil {
			fmt.Fprintf(stderr, "template-verify %s: --cache-dir: %v\n", fs.Name(), err)
			return false
		}
		*o.cacheDir = abs
	}
	names := checkNames()
	for _, c := range o.checks() {
		if !slices.Contains(names, c) {
			fmt.Fprintf(stderr, "template-verify %s: --only: unknown check %q%s (checks: %s)\n", fs.Name(), c, didYouMean(c, names), strings.Join(names, ", "))
			return false
		}
	}
	return true
}

// sandboxUsage is the help of --sandbox, a flag of the commands that run
// code from pull requests.
const sandboxUsage = "where code from the pull request runs: auto (bwrap if it starts, else landlock, else none), bwrap, landlock or none; empty: " + sandbox.ModeEnv + ", else auto"

// sandboxMode is the sandbox mode of a command: the flag's value, else
// the environment's (sandbox.EnvMode), else auto. It prints the problem
// and returns false when the mode is unknown or names a backend that
// cannot run here. The mode is an option the command passes down
// (verify.Options.Sandbox, app.Config.Sandbox, sandbox.WithMode).
func sandboxMode(cmd, mode string, stderr io.Writer) (string, bool) {
	if mode == "" {
		mode = sandbox.EnvMode(os.Getenv)
	}
	if mode == "" {
		mode = sandbox.ModeAuto
	}
	ctx, err := sandbox.WithMode(context.Background(), mode)
	if err == nil {
		err = sandbox.Check(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "template-verify %s: --sandbox: %v\n", cmd, err)
		return "", false
	}
	return mode, true
}

// progressModes are the values of --progress.
var progressModes = []string{"auto", "always", "never"}

// checkNames are the names --only takes: those of verify.DefaultChecks.
func checkNames() []string {
	var names []string
	for _, c := range verify.DefaultChecks() {
		names = append(names, c.Name())
	}
	return names
}

func (o outputFlags) checks() []string                  { return splitList(*o.only) }
func (o outputFlags) log(stderr io.Writer) *slog.Logger { return logger(stderr, *o.verbose) }
func (o outputFlags) progressTo(stderr io.Writer) checks.Progress {
	return progressFor(*o.progress, stderr, os.Getenv)
}

// sarifDocsURL is the folder of the check pages that the SARIF rules'
// helpUri point into. Run as a GitHub Action step (getenv has
// GITHUB_ACTION_REPOSITORY and GITHUB_SERVER_URL), it is that action's
// repository on that server at GITHUB_ACTION_REF (a fork or a GitHub
// Enterprise mirror has its own pages); else "", which is
// template-verify's repository (report.DocsURL).
func sarifDocsURL(getenv func(string) string) string {
	server, repo := strings.TrimSuffix(getenv("GITHUB_SERVER_URL"), "/"), getenv("GITHUB_ACTION_REPOSITORY")
	if server == "" || repo == "" || strings.Count(repo, "/") != 1 {
		return ""
	}
	ref := getenv("GITHUB_ACTION_REF")
	if ref == "" {
		ref = "main"
	}
	return server + "/" + repo + "/blob/" + ref + "/docs/checks/"
}
