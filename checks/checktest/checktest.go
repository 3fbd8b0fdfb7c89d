// Package checktest builds the inputs of check tests: a real git
// repository with a base commit on main and a head commit on branch pr,
// the base's and head's configs decoded, the plan built, and the
// checks.Input of the run; and findings for the tests of what reports them.
package checktest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/plan"
)

// Deleted as a file's content in an overlay removes the file.
const Deleted = "\x00deleted"

// linkPrefix starts the content of an overlay entry made by Link.
const linkPrefix = "\x00link:"

// Link as a file's content in an overlay makes the path a symbolic link to
// target (replacing a file there).
func Link(target string) string { return linkPrefix + target }

// The branches of a repository made by Repo.
const (
	Base = "main"
	Head = "pr"
)

// Repo makes a repository with base committed on main and the overlay head
// (files to write; Deleted removes one, Link makes a symbolic link)
// committed on branch pr, which is checked out at the end.
func Repo(t testing.TB, base, head map[string]string) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	Commit(r, "base", base)
	r.Git("checkout", "-q", "-b", Head)
	Commit(r, "head", head)
	return r
}

// Commit applies the overlay files to the work tree of r (Deleted removes
// a file, Link makes a symbolic link) and commits everything; it returns
// the new sha.
func Commit(r *gittest.Repo, msg string, files map[string]string) string {
	r.T.Helper()
	write := map[string]string{}
	for p, c := range files {
		full := filepath.Join(r.Dir(), filepath.FromSlash(p))
		switch {
		case c == Deleted:
			if err := os.Remove(full); err != nil {
				r.T.Fatal(err)
			}
		case strings.HasPrefix(c, linkPrefix):
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				r.T.Fatal(err)
			}
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				r.T.Fatal(err)
			}
			if err := os.Symlink(strings.TrimPrefix(c, linkPrefix), full); err != nil {
				r.T.Fatal(err)
			}
		default:
			write[p] = c
		}
	}
	r.Write(write)
	return r.Commit(msg)
}

// Config decodes a config's YAML text as the file config.Path (an empty
// text is the defaults, as an empty file). An error fails the test.
func Config(t testing.TB, text string) *config.Config {
	t.Helper()
	c, err := config.Decode(config.Path, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Input plans base..head in repo with the head config and returns the
// input of a run: baseCfg may be nil (the base has no config that
// decodes). The work folder is the test's temporary folder; the log
// discards.
func Input(t testing.TB, repo gitx.Repo, base, head string, headCfg, baseCfg *config.Config) *checks.Input {
	t.Helper()
	p, err := plan.Build(context.Background(), repo, headCfg, base, head)
	if err != nil {
		t.Fatal(err)
	}
	return &checks.Input{Repo: repo.Dir, Plan: p, Config: headCfg, BaseConfig: baseCfg, WorkDir: t.TempDir(),
		Log: slog.New(slog.DiscardHandler)}
}

// PR is the common case: the base files with baseCfg at config.Path on
// main, the head overlay (Deleted removes a file) with headCfg at
// config.Path on pr, planned with the head config; both configs are
// decoded (an empty text is the defaults).
func PR(t testing.TB, baseCfg, headCfg string, base, head map[string]string) *checks.Input {
	t.Helper()
	r := Repo(t, WithConfig(base, baseCfg), WithConfig(head, headCfg))
	return Input(t, r.Repo, Base, Head, Config(t, headCfg), Config(t, baseCfg))
}

// WithConfig is a copy of files with the config text at config.Path.
func WithConfig(files map[string]string, cfg string) map[string]string {
	out := map[string]string{config.Path: cfg}
	maps.Copy(out, files)
	return out
}

// Findings makes n failure findings, a syntax error on each of the lines
// 1 to n of templates/test.sh: enough of them to pass the limits of a
// check run or a comment.
func Findings(n int) []checks.Finding {
	var out []checks.Finding
	for i := range n {
		out = append(out, checks.Finding{Path: "templates/test.sh", Line: i + 1, Level: checks.LevelFailure,
			Title: "Syntax error", Message: fmt.Sprintf("bash -n fails at line %d", i+1)})
	}
	return out
}
