package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/formula-code/template-verify/checks/render"
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
	dumpDir := fs.String("dump-renders", "", "write every rendered byte of record into this new or empty folder: SIDE/TEMPLATE/SET files and "+render.DumpIndex)
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
	if err := emptyFolder(*dumpDir); err != nil {
		fmt.Fprintln(stderr, "template-verify run: --dump-renders:", err)
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
		DumpRenders: *dumpDir,
		Sandbox:     *out.sandbox,
		CacheDir:    *out.cacheDir,
	})
	if err != nil {
		return verifyError(err, stderr)
	}
	if *dumpDir != "" {
		if _, err := os.Stat(filepath.Join(*dumpDir, render.DumpIndex)); err != nil {
			fmt.Fprintf(stderr, "template-verify run: --dump-renders: the render check did not run, so %s holds no renders.\n", *dumpDir)
		}
	}
	return output(rep, *out.format, stdout, stderr)
}

// emptyFolder checks that dir is a new or empty folder and makes it: a
// dump into a folder with older files would mix two runs.
func emptyFolder(dir string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return fmt.Errorf("%s is not empty", dir)
	case err != nil && !os.IsNotExist(err):
		return err
	}
	return os.MkdirAll(dir, 0o755)
}
