package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/verify"
)

// cmdLedger lists the pull requests merged into a release branch since it
// left the base branch, re-verifies each merged head on this machine, and
// prints the ledger as a table.
func cmdLedger(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the git repository")
	base := fs.String("base", "main", "the branch the release branch merges into")
	head := fs.String("head", "", "the release branch (required)")
	format := fs.String("format", "text", "text or json")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *head == "" || fs.NArg() > 0 || (*format != "text" && *format != "json") {
		fmt.Fprintln(stderr, "template-verify ledger: give --head BRANCH, and --format text or json")
		return exitUsage
	}
	r := gitx.Repo{Dir: *repo}
	if !r.IsRepo(ctx) {
		fmt.Fprintf(stderr, "template-verify ledger: %s is not a git repository\n", *repo)
		return exitUsage
	}
	for _, rev := range []string{*base, *head} {
		if _, err := r.Resolve(ctx, rev); err != nil {
			fmt.Fprintln(stderr, "template-verify ledger:", err)
			return exitUsage
		}
	}
	entries, err := ledger.Entries(ctx, r, *base, *head)
	if err != nil {
		fmt.Fprintln(stderr, "template-verify ledger:", err)
		return exitUsage
	}
	n := 0
	progress := func(ctx context.Context, dir, b, h string) (string, error) {
		n++
		fmt.Fprintf(stderr, "ledger   verifying merged head %d: %.12s against %.12s\n", n, h, b)
		return verify.LedgerVerify(ctx, dir, b, h)
	}
	src := ledger.NewLocal(*repo, config.DefaultLedgerRunName, progress, entries)
	rows, err := ledger.Judge(ctx, src, config.DefaultLedgerRunName, entries)
	if err != nil {
		fmt.Fprintln(stderr, "template-verify ledger:", err)
		return exitFail
	}
	bad := 0
	for _, row := range rows {
		if row.Status.Bad() {
			bad++
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintln(stderr, "template-verify ledger:", err)
			return exitFail
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(ledger.Header, "\t"))
		for _, row := range ledger.Table(rows) {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
		fmt.Fprintf(stdout, "\n%d of %d entries lack a green verification of the head they merged.\n", bad, len(rows))
	}
	if bad > 0 {
		return exitFail
	}
	return exitPass
}
