package pytest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
)

// deleted marks a file that the head deletes.
const deleted = "\x00deleted"

// makeRepo builds a git repository with a base commit on main and one head
// commit on branch head that applies the overlay.
func makeRepo(t *testing.T, base, head map[string]string) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	repo := gitx.Repo{Dir: dir}
	run := func(args ...string) {
		t.Helper()
		if _, err := repo.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	write := func(files map[string]string) {
		t.Helper()
		for p, c := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if c == deleted {
				if err := os.Remove(full); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	run("init", "-q", "-b", "main")
	write(base)
	run("add", "-A")
	run("commit", "-q", "-m", "base")
	run("checkout", "-q", "-b", "head")
	write(head)
	run("add", "-A")
	run("commit", "-q", "--allow-empty", "-m", "head")
	return dir
}

// runCheck plans main..head with cfg and runs the pytest check.
func runCheck(t *testing.T, dir string, cfg *config.Config) checks.Result {
	t.Helper()
	ctx := context.Background()
	p, err := plan.Build(ctx, gitx.Repo{Dir: dir}, cfg, "main", "head")
	if err != nil {
		t.Fatal(err)
	}
	in := &checks.Input{Repo: dir, Plan: p, Config: cfg, WorkDir: t.TempDir()}
	res := New().Run(ctx, in)
	if res.Check != "pytest" {
		t.Errorf("result check name %q", res.Check)
	}
	return res
}

func suiteConfig(files []string, env map[string]string) *config.Config {
	return &config.Config{Version: 1, Source: "test", Pytest: &config.Pytest{Suites: []config.Suite{{
		Name: "unit", Files: files, Triggers: []string{"src/**", "tests/**"}, Env: env,
	}}}}
}
