package pytest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
)

// runExample runs the pytest check on base..head of the bundled example,
// with the head's config.
func runExample(t *testing.T, head string) checks.Result {
	t.Helper()
	return runExampleB(t, context.Background(), head)
}

func runExampleB(t testing.TB, ctx context.Context, head string) checks.Result {
	t.Helper()
	b, err := examples.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := gitx.Repo{Dir: b.Dir}
	data, ok, err := repo.ReadFile(ctx, b.Heads[head], config.Path)
	if err != nil || !ok {
		t.Fatalf("read %s at %s: ok=%v %v", config.Path, head, ok, err)
	}
	cfg, err := config.Decode(config.Path, data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(ctx, repo, cfg, b.Base, b.Heads[head])
	if err != nil {
		t.Fatal(err)
	}
	return New().Run(ctx, &checks.Input{Repo: b.Dir, Plan: p, Config: cfg, WorkDir: t.TempDir()})
}

func TestExampleGoodHeadPasses(t *testing.T) {
	t.Parallel()
	needPython(t)
	res := runExample(t, examples.HeadGood)
	if res.Conclusion != checks.Success {
		t.Fatalf("conclusion %s: %s\n%s\nfindings: %+v\nnotes: %q", res.Conclusion, res.Title, res.Summary, res.Findings, res.Notes)
	}
	if len(res.Figures) == 0 || res.Figures[0].Label != "pytest tests/test_templates.py" || !strings.HasSuffix(res.Figures[0].Value, "passed") {
		t.Errorf("figures %+v", res.Figures)
	}
	if !strings.HasPrefix(res.Figures[0].Command, "PYTHONPATH=src ") {
		t.Errorf("command %q", res.Figures[0].Command)
	}
	// The good head changes the config and the template folder but not
	// the rendered runner: no runner scenario runs.
	if len(res.Tables) != 0 || !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "The runner scenarios did not run: src/datasmith/harbor_adapter/template/tests/pytest_runner.py renders to the same bytes")
	}) {
		t.Fatalf("tables %+v; notes %q", res.Tables, res.Notes)
	}
	t.Logf("%s: %s\n%s", res.Conclusion, res.Title, res.Summary)
	for _, f := range res.Figures {
		t.Logf("figure %s: %s (%s)", f.Label, f.Value, f.Command)
	}
	for _, n := range res.Notes {
		t.Logf("note: %s", n)
	}
}
