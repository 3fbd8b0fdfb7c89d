package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/secrets"
)

// cmdServe runs the GitHub App: `template-verify serve`, or `serve
// migrate` to bring the database to the current schema and exit. Every
// flag has an environment variable; a flag wins over its variable.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	migrate := len(args) > 0 && args[0] == "migrate"
	if migrate {
		args = args[1:]
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	appID := fs.String("app-id", "", "the GitHub App id (TEMPLATE_VERIFY_APP_ID)")
	keyFile := fs.String("private-key-file", "", "the App's PEM private key file (TEMPLATE_VERIFY_PRIVATE_KEY_FILE); or the key itself in TEMPLATE_VERIFY_PRIVATE_KEY")
	secretFile := fs.String("webhook-secret-file", "", "a file with the webhook secret (TEMPLATE_VERIFY_WEBHOOK_SECRET_FILE); or the secret in TEMPLATE_VERIFY_WEBHOOK_SECRET")
	listen := fs.String("listen", ":8080", "the listen address (TEMPLATE_VERIFY_LISTEN)")
	apiURL := fs.String("api-url", app.DefaultAPIURL, "the GitHub REST API URL; for GitHub Enterprise Server https://HOST/api/v3 (TEMPLATE_VERIFY_API_URL)")
	slug := fs.String("app-slug", "", "the App's slug; empty: read from GET /app (TEMPLATE_VERIFY_APP_SLUG)")
	workers := fs.Int("workers", 2, "verifications that run at once (TEMPLATE_VERIFY_WORKERS)")
	cacheMB := fs.Int64("cache-mb", app.DefaultCacheBytes>>20, "MiB that the results cache in DATA_DIR/cache keeps (render recordings, restore and pytest results that a later push with the same inputs reuses), the entries used longest ago removed first; 0 keeps none (TEMPLATE_VERIFY_CACHE_MB)")
	niceLevel := fs.Int("nice", app.DefaultNice, "nice level (0-19) of the git, bash and pytest processes of verifications, so that webhooks are answered first; 0 keeps them at the server's (TEMPLATE_VERIFY_NICE)")
	dataDir := fs.String("data-dir", "/var/lib/template-verify", "the folder of the clones and, without --database-url, of the queue's SQLite file (TEMPLATE_VERIFY_DATA_DIR)")
	databaseURL := fs.String("database-url", "", "a Postgres URL, postgres://USER@HOST/DB, that replicas share; empty: the SQLite file in --data-dir (TEMPLATE_VERIFY_DATABASE_URL)")
	metricsAddr := fs.String("metrics-addr", app.DefaultMetricsAddr, "serve /metrics on this address alone, not on --listen; \""+app.MetricsOnWebhook+"\": on --listen (TEMPLATE_VERIFY_METRICS_ADDR)")
	rescueAfter := fs.Duration("rescue-after", app.DefaultRescueAfter, "how long a job may run before it counts as left by a replica that died and runs again; longer than any verification (TEMPLATE_VERIFY_RESCUE_AFTER)")
	replica := fs.String("replica", "", "this replica's name in /metrics and in the queue, unique per database; empty: the id kept in DATA_DIR/replica-id, made at the first start (TEMPLATE_VERIFY_REPLICA)")
	grace := fs.Duration("shutdown-grace", 30*time.Second, "how long a stop lets running verifications finish (TEMPLATE_VERIFY_SHUTDOWN_GRACE)")
	credDir := fs.String("credentials-dir", "", "the folder of the App id, key and webhook secret that --register writes, read when no flag or variable gives them; empty: DATA_DIR/app (TEMPLATE_VERIFY_CREDENTIALS_DIR)")
	register := fs.Bool("register", false, "serve the registration page instead: it creates the App on GitHub from app.yml and writes its credentials to --credentials-dir")
	publicURL := fs.String("public-url", "", "with --register: the URL where GitHub reaches this server, https://HOST (TEMPLATE_VERIFY_PUBLIC_URL)")
	githubURL := fs.String("github-url", app.DefaultGitHubURL, "with --register: GitHub's web address; for GitHub Enterprise Server https://HOST (TEMPLATE_VERIFY_GITHUB_URL)")
	org := fs.String("org", "", "with --register: create the App under this organisation; empty: under your user")
	allowUnsandboxed := fs.Bool("allow-unsandboxed", false, "run code from pull requests even where no sandbox (bwrap or landlock) can start; that code can then read this user's files, reach the network and the tool's /proc (TEMPLATE_VERIFY_ALLOW_UNSANDBOXED=1)")
	sandboxFlag := fs.String("sandbox", "", sandboxUsage)
	// Variables first, then the command line, so that a flag wins.
	for _, flagName := range slices.Sorted(maps.Keys(serveEnv)) {
		envName := serveEnv[flagName]
		if v, ok := secrets.Lookup(envName); ok {
			if err := fs.Set(flagName, v); err != nil {
				fmt.Fprintf(stderr, "template-verify serve: %s=%q: %v\n", envName, v, err)
				return exitUsage
			}
		}
	}
	verbose := fs.Bool("v", false, "log debug lines")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "template-verify serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *credDir == "" {
		*credDir = filepath.Join(*dataDir, "app")
	}
	if migrate {
		if err := app.Migrate(ctx, app.Config{DataDir: *dataDir, DatabaseURL: *databaseURL}); err != nil {
			fmt.Fprintf(stderr, "template-verify serve migrate: %v\n", err)
			return exitFail
		}
		fmt.Fprintln(stdout, "template-verify serve migrate: the database is at the current schema")
		return exitPass
	}
	if *register {
		if *publicURL == "" {
			fmt.Fprintln(stderr, "template-verify serve --register: --public-url is required (where GitHub reaches this server)")
			return exitUsage
		}
		return serveRegister(ctx, registerOptions{listen: *listen, publicURL: *publicURL, githubURL: *githubURL, apiURL: *apiURL,
			org: *org, dir: *credDir, log: slog.New(slog.NewJSONHandler(stderr, nil))}, stdout, stderr)
	}
	if err := credentialFiles(*credDir, appID, keyFile, secretFile, slug); err != nil {
		fmt.Fprintf(stderr, "template-verify serve: %v\n", err)
		return exitUsage
	}
	id, err := strconv.ParseInt(*appID, 10, 64)
	if err != nil || id <= 0 {
		fmt.Fprintf(stderr, "template-verify serve: --app-id %q is not an App id (no App yet? template-verify serve --register --public-url https://HOST creates one)\n", *appID)
		return exitUsage
	}
	if *niceLevel < 0 || *niceLevel > 19 {
		fmt.Fprintf(stderr, "template-verify serve: --nice %d: want 0 to 19\n", *niceLevel)
		return exitUsage
	}
	key, err := secretValue(*keyFile, "TEMPLATE_VERIFY_PRIVATE_KEY", "private key")
	if err != nil {
		fmt.Fprintf(stderr, "template-verify serve: %v\n", err)
		return exitUsage
	}
	secret, err := secretValue(*secretFile, "TEMPLATE_VERIFY_WEBHOOK_SECRET", "webhook secret")
	if err != nil {
		fmt.Fprintf(stderr, "template-verify serve: %v\n", err)
		return exitUsage
	}
	mode, ok := sandboxMode("serve", *sandboxFlag, stderr)
	if !ok {
		return exitUsage
	}
	sctx, _ := sandbox.WithMode(ctx, mode) // sandboxMode checked it
	if !*allowUnsandboxed && !sandboxAvailable(sctx) {
		fmt.Fprintf(stderr, "template-verify serve: no sandbox: %s.\n"+
			"serve runs code from pull requests (rendered scripts, tests) and refuses to run it without a sandbox.\n"+
			"Make bwrap or Landlock (Linux 6.2 or later) work here, or pass --allow-unsandboxed (TEMPLATE_VERIFY_ALLOW_UNSANDBOXED=1) to accept that this code\n"+
			"can read every file of this user, reach the network, and see this server's processes.\n", sandbox.Unavailable(sctx))
		return exitUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	runner, err := childRunner()
	if err != nil {
		fmt.Fprintf(stderr, "template-verify serve: find this program for its verification processes: %v\n", err)
		return exitFail
	}
	err = app.ListenAndServe(ctx, app.Config{
		AppID: id, PrivateKey: key, WebhookSecret: secret, AppSlug: *slug, APIURL: *apiURL,
		DataDir: *dataDir, Workers: *workers, Nice: *niceLevel, ShutdownGrace: *grace, Log: log,
		AllowUnsandboxed: *allowUnsandboxed, DatabaseURL: *databaseURL, MetricsAddr: *metricsAddr, Replica: *replica,
		RescueAfter: *rescueAfter, Sandbox: mode, VerifyChild: runner, CacheBytes: cacheBytes(*cacheMB),
	}, *listen)
	switch {
	case errors.Is(err, app.ErrConfig):
		fmt.Fprintf(stderr, "template-verify serve: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "template-verify serve: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, "template-verify serve stopped")
	return exitPass
}

// sandboxAvailable is sandbox.Available; tests replace it.
var sandboxAvailable = sandbox.Available

// secretValue reads a secret from file (once: the value stays in memory,
// no child is told the path), else from the variable that secrets.Hide
// moved out of the environment.
func secretValue(file, envName, what string) ([]byte, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read the %s: %w", what, err)
		}
		return trimNewline(b), nil
	}
	if v := secrets.Getenv(envName); v != "" {
		return trimNewline([]byte(v)), nil
	}
	return nil, fmt.Errorf("the %s is missing: give a file or set %s", what, envName)
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// serveEnv maps each serve flag to its environment variable.
var serveEnv = map[string]string{
	"app-id":              "TEMPLATE_VERIFY_APP_ID",
	"private-key-file":    "TEMPLATE_VERIFY_PRIVATE_KEY_FILE",
	"webhook-secret-file": "TEMPLATE_VERIFY_WEBHOOK_SECRET_FILE",
	"listen":              "TEMPLATE_VERIFY_LISTEN",
	"api-url":             "TEMPLATE_VERIFY_API_URL",
	"app-slug":            "TEMPLATE_VERIFY_APP_SLUG",
	"workers":             "TEMPLATE_VERIFY_WORKERS",
	"cache-mb":            "TEMPLATE_VERIFY_CACHE_MB",
	"nice":                "TEMPLATE_VERIFY_NICE",
	"data-dir":            "TEMPLATE_VERIFY_DATA_DIR",
	"database-url":        "TEMPLATE_VERIFY_DATABASE_URL",
	"metrics-addr":        "TEMPLATE_VERIFY_METRICS_ADDR",
	"replica":             "TEMPLATE_VERIFY_REPLICA",
	"rescue-after":        "TEMPLATE_VERIFY_RESCUE_AFTER",
	"shutdown-grace":      "TEMPLATE_VERIFY_SHUTDOWN_GRACE",
	"allow-unsandboxed":   "TEMPLATE_VERIFY_ALLOW_UNSANDBOXED",
	"sandbox":             "TEMPLATE_VERIFY_SANDBOX",
	"credentials-dir":     "TEMPLATE_VERIFY_CREDENTIALS_DIR",
	"public-url":          "TEMPLATE_VERIFY_PUBLIC_URL",
	"github-url":          "TEMPLATE_VERIFY_GITHUB_URL",
}

// cacheBytes is --cache-mb as app.Config.CacheBytes: 0 MiB turns the
// cache off.
func cacheBytes(mb int64) int64 {
	if mb <= 0 {
		return -1
	}
	return mb << 20
}
