// Package checktest builds the inputs of check tests: a real git
// repository with a base commit on main and a head commit on branch pr,
// the base's and head's configs decoded, the plan built, and the
// checks.Input of the run.
package checktest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/plan"
)

// Deleted as a file's content in a head overlay removes the file.
const Deleted = "\x00deleted"

// The branches of a repository made by Repo.
const (
	Base = "main"
	Head = "pr"
)

// Repo makes a repository with base committed on main and the overlay head
// (files to write; Deleted removes one) committed on branch pr, which is
// checked out at the end.
func Repo(t testing.TB, base, head map[string]string) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	Commit(r, "base", base)
	r.Git("checkout", "-q", "-b", Head)
	Commit(r, "head", head)
	return r
}

// Commit applies the overlay files to the work tree of r (Deleted removes
// a file) and commits everything; it returns the new sha.
func Commit(r *gittest.Repo, msg string, files map[string]string) string {
	r.T.Helper()
	write := map[string]string{}
	for p, c := range files {
		if c != Deleted {
			write[p] = c
			continue
		}
		if err := os.Remove(filepath.Join(r.Dir(), filepath.FromSlash(p))); err != nil {
			r.T.Fatal(err)
		}
	}
	r.Write(write)
	return r.Commit(msg)
}

// Config decodes a config's YAML text as the file config.Path; "" is nil
// (no config). An error fails the test.
func Config(t testing.TB, text string) *config.Config {
	t.Helper()
	if text == "" {
		return nil
	}
	c, err := config.Decode(config.Path, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Input plans base..head in r with the head config and returns the input
// of a run: baseCfg may be nil (the base has no config that decodes). The
// work folder is the test's temporary folder; the log discards.
func Input(t testing.TB, r *gittest.Repo, base, head string, headCfg, baseCfg *config.Config) *checks.Input {
	t.Helper()
	p, err := plan.Build(context.Background(), r.Repo, headCfg, base, head)
	if err != nil {
		t.Fatal(err)
	}
	return &checks.Input{Repo: r.Dir(), Plan: p, Config: headCfg, BaseConfig: baseCfg, WorkDir: t.TempDir(),
		Log: slog.New(slog.DiscardHandler)}
}

// PR is the common case: the base files with baseCfg at config.Path on
// main, the head overlay with headCfg at config.Path on pr (an empty
// config text writes no config file and decodes as nil), planned with the
// head config (the base's when the head's is empty).
func PR(t testing.TB, baseCfg, headCfg string, base, head map[string]string) *checks.Input {
	t.Helper()
	b, h := with(base, baseCfg), with(head, headCfg)
	r := Repo(t, b, h)
	bc, hc := Config(t, baseCfg), Config(t, headCfg)
	if hc == nil {
		hc = bc
	}
	return Input(t, r, Base, Head, hc, bc)
}

// with is files with the config text at config.Path (when not empty).
func with(files map[string]string, cfg string) map[string]string {
	if strings.TrimSpace(cfg) == "" {
		return files
	}
	out := map[string]string{config.Path: cfg}
	for p, c := range files {
		out[p] = c
	}
	return out
}
