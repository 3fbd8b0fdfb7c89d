package action

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakeclock"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/plan"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

const (
	fixtureEvent = "testdata/github-webhooks/pull_request/synchronize.payload.json"
	repoFull     = "octo/hello"
	prNumber     = 2
)

// event writes a pull_request event file from the real synchronize
// payload, pointed at base and head of repoFull, after edit.
func event(t *testing.T, base, head string, edit func(pr map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(fixtureEvent)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	ev["number"] = prNumber
	ev["repository"].(map[string]any)["full_name"] = repoFull
	pr := ev["pull_request"].(map[string]any)
	pr["number"] = prNumber
	h, b := pr["head"].(map[string]any), pr["base"].(map[string]any)
	h["sha"], b["sha"], b["ref"] = head, base, "main"
	h["repo"].(map[string]any)["full_name"] = repoFull
	b["repo"].(map[string]any)["full_name"] = repoFull
	if edit != nil {
		edit(pr)
	}
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// harness is one Action environment against a fake GitHub.
type harness struct {
	t       *testing.T
	srv     *fakegithub.Server
	env     map[string]string
	stdout  bytes.Buffer
	verify  func(context.Context, verify.Options) (*report.Report, error)
	checks  func() []checks.Check
	calls   int
	lastOpt verify.Options
}

func newHarness(t *testing.T, srv *fakegithub.Server, workspace, eventPath string) *harness {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "runner-temp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if srv == nil {
		srv = fakegithub.New(t)
	}
	srv.AddPull(repoFull, fakegithub.Pull{Number: prNumber, BaseRef: "main"})
	return &harness{t: t, srv: srv, env: map[string]string{
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   eventPath,
		"GITHUB_REPOSITORY":   repoFull,
		"GITHUB_WORKSPACE":    workspace,
		"GITHUB_API_URL":      srv.URL,
		"GITHUB_SERVER_URL":   "https://github.invalid",
		"GITHUB_RUN_ID":       "99",
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"RUNNER_TEMP":         filepath.Join(dir, "runner-temp"),
		"INPUT_GITHUB-TOKEN":  "ghs_test",
	}}
}

func (h *harness) run() int {
	h.stdout.Reset()
	return Run(context.Background(), Options{
		Getenv: func(k string) string { return h.env[k] },
		Stdout: &h.stdout,
		Verify: func(ctx context.Context, o verify.Options) (*report.Report, error) {
			h.calls++
			h.lastOpt = o
			if h.verify == nil {
				return verify.Run(ctx, o)
			}
			return h.verify(ctx, o)
		},
		Checks: h.checks,
		Clock:  fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
	})
}

func (h *harness) summary() string {
	b, _ := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"])
	return string(b)
}

// outputs parses the GITHUB_OUTPUT file (name<<delimiter lines).
func (h *harness) outputs() map[string]string {
	b, _ := os.ReadFile(h.env["GITHUB_OUTPUT"])
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

// smallRepo is a git repository with two commits: base and head.
func smallRepo(t *testing.T) (dir, base, head string) {
	r := gittest.New(t)
	r.Write(map[string]string{"README.md": "hello\n"})
	base = r.Commit("base")
	r.Write(map[string]string{"README.md": "hello again\n"})
	head = r.Commit("head")
	return r.Dir(), base, head
}

// stubChecks names the check runs made before the stub verification.
func stubChecks(names ...string) func() []checks.Check {
	return func() []checks.Check {
		var out []checks.Check
		for _, n := range names {
			out = append(out, namedCheck(n))
		}
		return out
	}
}

type namedCheck string

func (c namedCheck) Name() string { return string(c) }
func (c namedCheck) Run(context.Context, *checks.Input) checks.Result {
	return checks.Result{Check: string(c), Conclusion: checks.NotRun}
}

// stubReport returns a fixed report for the options, of a change to one
// template.
func stubReport(results ...checks.Result) func(context.Context, verify.Options) (*report.Report, error) {
	return func(_ context.Context, o verify.Options) (*report.Report, error) {
		return &report.Report{Repo: o.RepoName, BaseRev: o.Base, HeadRev: o.Head, Base: o.Base, Head: o.Head,
			Templates: []plan.Template{{Group: "tests", Path: "templates/test.sh", OldPath: "templates/test.sh", Status: plan.Modified}},
			Results:   results, Overall: checks.Overall(results), Command: o.Command}, nil
	}
}
