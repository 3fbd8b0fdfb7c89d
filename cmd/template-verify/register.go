package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	templateverify "github.com/formula-code/template-verify"
	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/internal/secrets"
)

// registerOptions are the serve flags of --register.
type registerOptions struct {
	listen, publicURL, githubURL, apiURL, org, dir string
	log                                            *slog.Logger
}

// serveRegister serves the registration page until GitHub's callback has
// written the credentials (exit 0) or the context ends (exit 1).
func serveRegister(ctx context.Context, o registerOptions, stdout, stderr io.Writer) int {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		fmt.Fprintf(stderr, "template-verify serve --register: %v\n", err)
		return exitFail
	}
	token := hex.EncodeToString(b)
	registered := make(chan app.Credentials, 1)
	reg, err := app.NewRegistrar(app.RegisterConfig{
		PublicURL: o.publicURL, GitHubURL: o.githubURL, APIURL: o.apiURL, Org: o.org,
		Manifest: templateverify.AppManifest, Dir: o.dir, Token: token, Log: o.log,
		Done: func(c app.Credentials) { registered <- c },
	})
	if err != nil {
		fmt.Fprintf(stderr, "template-verify serve --register: %v\n", err)
		return exitUsage
	}
	if _, err := os.Stat(filepath.Join(o.dir, app.FileAppID)); err == nil {
		fmt.Fprintf(stderr, "template-verify serve --register: %s holds an App already; move it away to register another\n", o.dir)
		return exitUsage
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		fmt.Fprintf(stderr, "template-verify serve --register: %v\n", err)
		return exitFail
	}
	srv := &http.Server{Handler: reg, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "Open %s/register?token=%s in a browser to register the App (listening on %s).\n",
		strings.TrimRight(o.publicURL, "/"), token, ln.Addr())
	select {
	case c := <-registered:
		fmt.Fprintf(stdout, "Registered the App %s (id %d). Its credentials are in %s.\n"+
			"Install it on the repositories to verify, then start: template-verify serve --data-dir %s\n",
			c.Slug, c.AppID, o.dir, filepath.Dir(o.dir))
		return exitPass
	case <-ctx.Done():
		fmt.Fprintln(stderr, "template-verify serve --register: stopped before GitHub called back")
		return exitFail
	}
}

// credentialFiles fills the App id, key file, secret file and slug that
// no flag or variable gave from the credentials folder that --register
// wrote, when it has them.
func credentialFiles(dir string, appID, keyFile, secretFile, slug *string) error {
	if _, err := os.Stat(filepath.Join(dir, app.FileAppID)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("the credentials folder: %w", err)
	}
	if *appID == "" {
		b, err := os.ReadFile(filepath.Join(dir, app.FileAppID))
		if err != nil {
			return fmt.Errorf("read the App id: %w", err)
		}
		*appID = strings.TrimSpace(string(b))
	}
	if *keyFile == "" && secrets.Getenv("TEMPLATE_VERIFY_PRIVATE_KEY") == "" {
		*keyFile = filepath.Join(dir, app.FilePrivateKey)
	}
	if *secretFile == "" && secrets.Getenv("TEMPLATE_VERIFY_WEBHOOK_SECRET") == "" {
		*secretFile = filepath.Join(dir, app.FileWebhookSecret)
	}
	if *slug == "" {
		if b, err := os.ReadFile(filepath.Join(dir, app.FileAppSlug)); err == nil {
			*slug = strings.TrimSpace(string(b))
		}
	}
	return nil
}
