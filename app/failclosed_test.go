package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// headWith commits files on a branch from the fixture's base and returns
// the new head.
func (h *harness) headWith(branch string, files map[string]string) string {
	h.t.Helper()
	ctx := context.Background()
	dir := filepath.Join(h.git.Root, testRepo)
	r := gitx.Repo{Dir: dir}
	run := func(args ...string) {
		if _, err := r.Run(ctx, args...); err != nil {
			h.t.Fatal(err)
		}
	}
	run("checkout", "-q", "-b", branch, h.repo.base)
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-q", "-m", branch)
	sha, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		h.t.Fatal(err)
	}
	run("checkout", "-q", "main")
	return sha
}

// failingRender reports a failing render check.
func failingRender(_ context.Context, in verify.Options) (*report.Report, error) {
	res := []checks.Result{{Check: "render", Conclusion: checks.Failure, Title: "The render fails", Summary: "test.sh: undefined variable"}}
	return &report.Report{Repo: in.RepoName, Base: in.Base, Head: in.Head, BaseRev: in.Base, HeadRev: in.Head,
		Results: res, Overall: checks.Failure, ConfigSource: report.DefaultsSource}, nil
}

// notRunRender reports a render check that did not run.
func notRunRender(_ context.Context, in verify.Options) (*report.Report, error) {
	res := []checks.Result{{Check: "render", Conclusion: checks.NotRun, Title: "No python", Summary: "render did not run"}}
	return &report.Report{Repo: in.RepoName, Base: in.Base, Head: in.Head, BaseRev: in.Base, HeadRev: in.Head,
		Results: res, Overall: checks.NotRun, ConfigSource: report.DefaultsSource}, nil
}

// runPR sends one synchronize delivery for head and waits until its runs
// are done.
func (h *harness) runPR(n int, head string) map[string]string {
	h.t.Helper()
	h.addPull(n, head, false)
	h.gh.SetPermission(testFull, "dev", "write")
	h.send("pull_request", "fc-"+head[:8], h.pullPayload("synchronize", n, head, false))
	h.waitFor("the runs of the head", func() bool { return h.allDone(head, 3) && h.idle() })
	out := map[string]string{}
	for name, r := range h.runsOf(head) {
		out[name] = r.Conclusion + ": " + r.Summary
	}
	return out
}

func TestAppFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		files  map[string]string
		verify func(*harness) VerifyFunc
		want   map[string]string // run name -> conclusion, and a word its summary has
	}{
		{
			// The real verification: the head's config does not decode.
			name:   "unknown config key at head",
			files:  map[string]string{".github/template-verify.yml": "version: 1\nfoo: 1\n", "templates/a/test.sh": "echo changed\n"},
			verify: func(*harness) VerifyFunc { return verify.Run },
			want:   map[string]string{"template-verify / gate": "failure foo", "template-verify / render": "failure foo", RunName: "failure foo"},
		},
		{
			// A panic in the verification is an error of this job; the
			// server goes on.
			name:  "panic in the verification",
			files: map[string]string{"templates/a/test.sh": "echo changed\n"},
			verify: func(*harness) VerifyFunc {
				return func(context.Context, verify.Options) (*report.Report, error) { panic("index out of range [3]") }
			},
			want: map[string]string{"template-verify / gate": "failure range", "template-verify / render": "failure range", RunName: "failure range"},
		},
		{
			// A check that did not run is never a pass: the App's run
			// follows the gate, not "neutral".
			name:   "a check did not run",
			files:  map[string]string{"templates/a/test.sh": "echo changed\n"},
			verify: func(*harness) VerifyFunc { return notRunRender },
			want:   map[string]string{"template-verify / gate": "failure render", RunName: "failure gate"},
		},
		{
			// The head's config names no gated branch; the base (defaults)
			// gates main.
			name:   "head config drops the base branch from the gate",
			files:  map[string]string{".github/template-verify.yml": "version: 1\ngate: {branches: [nothing]}\n", "templates/a/test.sh": "echo changed\n"},
			verify: func(*harness) VerifyFunc { return failingRender },
			want:   map[string]string{"template-verify / gate": "failure main", "template-verify / render": "failure undefined"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			head := h.headWith("pr", tc.files)
			h.start(tc.verify(h))
			got := h.runPR(9, head)
			for name, want := range tc.want {
				concl, word, _ := strings.Cut(want, " ")
				if !strings.HasPrefix(got[name], concl+": ") || !strings.Contains(got[name], word) {
					t.Errorf("%s: %q, want %s naming %q", name, got[name], concl, word)
				}
			}
		})
	}
}

func TestCrashedJobIsConcludedNotRunAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gh.SetPermission(testFull, "dev", "write")
	head := h.repo.heads[0]
	h.addPull(5, head, false)
	first := &stubVerify{block: head, started: make(chan string, 1)}
	h.start(first.fn)
	h.send("pull_request", "c-1", h.pullPayload("synchronize", 5, head, false))
	h.waitStarted(first)
	h.stop() // the job goes back to the queue; its state says running

	// The process died during each of MaxAttempts runs.
	h.editState("c-1", func(j *Job) {
		if j.State != StateRunning {
			t.Fatalf("state %q, want running", j.State)
		}
		j.Attempts = MaxAttempts
	})

	second := &stubVerify{}
	h.start(second.fn)
	h.waitFor("the crashed job to be concluded", func() bool { return h.idle() && h.allDone(head, 3) })
	if n := second.calls.Load(); n != 0 {
		t.Fatalf("the crashed job ran again (%d calls)", n)
	}
	for name, r := range h.runsOf(head) {
		if r.Status != "completed" || r.Conclusion != "failure" || !strings.Contains(r.Summary, "crashed 3 times") {
			t.Errorf("%s: %s/%s %q, want completed/failure saying it crashed 3 times", name, r.Status, r.Conclusion, r.Summary)
		}
	}
	// The server goes on: the next head runs.
	h.addPull(5, h.repo.heads[1], false)
	h.send("pull_request", "c-2", h.pullPayload("synchronize", 5, h.repo.heads[1], false))
	h.waitFor("the next head", func() bool { return h.idle() && h.allDone(h.repo.heads[1], 3) })
	if r := h.runsOf(h.repo.heads[1])["template-verify / gate"]; r.Conclusion != "success" {
		t.Errorf("next head: gate %s", r.Conclusion)
	}
}

func TestGracefulStopsDoNotCountAsCrashes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gh.SetPermission(testFull, "dev", "write")
	head := h.repo.heads[0]
	h.addPull(5, head, false)
	for i := 0; i < MaxAttempts; i++ {
		v := &stubVerify{block: head, started: make(chan string, 1)}
		h.start(v.fn)
		if i == 0 {
			h.send("pull_request", "g-1", h.pullPayload("synchronize", 5, head, false))
		}
		h.waitStarted(v)
		h.stop()
	}
	v := &stubVerify{}
	h.start(v.fn)
	h.waitFor("the run after the restarts", func() bool { return h.idle() && h.allDone(head, 3) })
	if v.calls.Load() != 1 || h.runsOf(head)["template-verify / gate"].Conclusion != "success" {
		t.Fatalf("calls %d, runs %+v", v.calls.Load(), h.runsOf(head))
	}
}
