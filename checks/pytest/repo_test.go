package pytest

import (
	"context"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// makeRepo builds a git repository with a base commit on main and one head
// commit on branch checktest.Head that applies the overlay.
func makeRepo(t *testing.T, base, head map[string]string) string {
	t.Helper()
	return checktest.Repo(t, base, head).Dir()
}

// runCheck plans main..head with cfg and runs the pytest check.
func runCheck(t *testing.T, dir string, cfg *config.Config) checks.Result {
	t.Helper()
	in := checktest.Input(t, gitx.Repo{Dir: dir}, checktest.Base, checktest.Head, cfg, nil)
	res := New().Run(context.Background(), in)
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
