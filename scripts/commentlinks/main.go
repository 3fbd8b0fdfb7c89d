// Command commentlinks renders the verification comment of a JSON report
// (from "template-verify demo --format json") with the links an Action run
// gives it: each failure linked to its line at head, the head commit, the
// check runs and the workflow run. scripts/comment-png.sh uses it, so that
// the pictures show the comment as a pull request shows it.
//
// Usage: commentlinks -repo URL [-config PATH] < report.json > comment.md
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/formula-code/template-verify/report"
)

func main() {
	repo := flag.String("repo", "https://github.com/formula-code/datasmith", "the repository's web page")
	config := flag.String("config", ".github/template-verify.yml", "where the configuration came from")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *repo, *config); err != nil {
		fmt.Fprintln(os.Stderr, "commentlinks:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, repo, config string) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("read the report: %w", err)
	}
	rep, err := report.ParseJSON(data)
	if err != nil {
		return err
	}
	rep.ConfigSource = config
	rep.Links = report.Links{Repo: repo, CheckRuns: map[string]string{}, Run: repo + "/actions/runs/1"}
	for i, res := range rep.Results {
		rep.Links.CheckRuns[res.Check] = fmt.Sprintf("%s/runs/%d", repo, 101+i)
	}
	md, err := rep.Markdown()
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, md)
	return err
}
