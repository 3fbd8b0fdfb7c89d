package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/app"
)

// Bad serve settings stop the start with exit 2 and a message that names
// the flag or variable; nothing listens.
func TestServeRejectsBadSettings(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
	}{
		{"no app id", nil, nil, `--app-id "" is not an App id`},
		{"app id not a number", map[string]string{"TEMPLATE_VERIFY_APP_ID": "twelve"}, nil, `--app-id "twelve"`},
		{"workers not a number", map[string]string{"TEMPLATE_VERIFY_WORKERS": "many"}, []string{"--app-id", "1"}, `TEMPLATE_VERIFY_WORKERS="many"`},
		{"grace not a duration", map[string]string{"TEMPLATE_VERIFY_SHUTDOWN_GRACE": "30"}, []string{"--app-id", "1"}, `TEMPLATE_VERIFY_SHUTDOWN_GRACE="30"`},
		{"nice too high", nil, []string{"--app-id", "1", "--nice", "25"}, "--nice 25: want 0 to 19"},
		{"nice from the environment", map[string]string{"TEMPLATE_VERIFY_NICE": "-3"}, []string{"--app-id", "1"}, "--nice -3: want 0 to 19"},
		{"no private key", nil, []string{"--app-id", "1"}, "the private key is missing"},
		{"key file missing", nil, []string{"--app-id", "1", "--private-key-file", "/nonexistent/app.pem"}, "/nonexistent/app.pem"},
		{"no webhook secret", map[string]string{"TEMPLATE_VERIFY_PRIVATE_KEY": "x"}, []string{"--app-id", "1"}, "the webhook secret is missing"},
		{"extra argument", nil, []string{"--app-id", "1", "now"}, `unexpected argument "now"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearServeEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, _, stderr := invoke(t, append([]string{"serve"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("stderr does not name the problem %q:\n%s", tc.wantErr, stderr)
			}
		})
	}
}

// clearServeEnv unsets the serve variables for the test.
func clearServeEnv(t *testing.T) {
	names := []string{"TEMPLATE_VERIFY_PRIVATE_KEY", "TEMPLATE_VERIFY_WEBHOOK_SECRET"}
	for _, name := range serveEnv {
		names = append(names, name)
	}
	for _, name := range names {
		t.Setenv(name, "") // restores the old value after the test
		os.Unsetenv(name)
	}
}

// `serve migrate` brings the SQLite file in the data folder to River's
// and the App's schema and exits; a second run finds nothing to do.
func TestServeMigrate(t *testing.T) {
	clearServeEnv(t)
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		code, stdout, stderr := invoke(t, "serve", "migrate", "--data-dir", dir)
		if code != exitPass || !strings.Contains(stdout, "current schema") {
			t.Fatalf("run %d: exit %d, stdout %q, stderr:\n%s", i+1, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, app.SQLiteFile)); err != nil {
		t.Fatalf("no database: %v", err)
	}
	code, _, stderr := invoke(t, "serve", "migrate", "--data-dir", dir, "--database-url", "mysql://x")
	if code != exitFail || !strings.Contains(stderr, "postgres://") {
		t.Fatalf("a URL that is not Postgres: exit %d, stderr:\n%s", code, stderr)
	}
}
