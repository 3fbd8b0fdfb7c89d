package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/gitx"
)

// Refs that the clone keeps for the base and head.
const (
	refBase = "refs/template-verify/base"
	refHead = "refs/template-verify/head"
)

// clone fetches only base and head of the repository at url into dir,
// with the token in an HTTP header. The header is in a config file that
// git includes through "-c include.path", so the token is not in the
// arguments, the environment, the URL or the clone's .git/config; the
// file is removed before clone returns. Errors have the token removed.
func clone(ctx context.Context, url, token, dir, base, head string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("work folder: %w", err)
	}
	secret, err := os.MkdirTemp("", "tv-auth-")
	if err != nil {
		return fmt.Errorf("auth folder: %w", err)
	}
	defer os.RemoveAll(secret)
	auth := filepath.Join(secret, "auth.gitconfig")
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	cfg := fmt.Sprintf("[http]\n\textraHeader = Authorization: Basic %s\n", basic)
	if err := os.WriteFile(auth, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("auth file: %w", err)
	}
	repo := gitx.Repo{Dir: dir}
	if _, err := repo.Run(ctx, "init", "-q"); err != nil {
		return cleanErr("git init", err, token, basic)
	}
	_, err = repo.Run(ctx, "-c", "include.path="+auth, "fetch", "-q", "--no-tags", "--no-write-fetch-head", url,
		"+"+base+":"+refBase, "+"+head+":"+refHead)
	if err != nil {
		return cleanErr("fetch the base and head", err, token, basic)
	}
	return nil
}

// cleanErr makes an error without the token. It does not wrap err, so no
// caller can reach the original text.
func cleanErr(what string, err error, secrets ...string) error {
	msg := err.Error()
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[token]")
		}
	}
	return fmt.Errorf("%s: %s", what, githubapi.RedactTokens(msg))
}
