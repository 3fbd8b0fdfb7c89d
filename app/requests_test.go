package app

import (
	"regexp"
	"strings"
	"testing"
)

// TestRequestsOfOneVerifiedPR records the REST requests of one verified
// pull request with one check whose comment is new. The publishing
// session makes the same six as the Action's (action's
// TestRequestsOfOneVerifiedPR): two runs made in progress, completed,
// the comment found and created. The App adds five of its own: the
// installation token, the author's permission (the trust decision the
// Action leaves to GitHub's fork rule), and its own check run (queued,
// in progress, concluded), which shows the queue and carries the re-run
// button.
func TestRequestsOfOneVerifiedPR(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start((&stubVerify{}).fn)
	h.addPull(2, h.repo.heads[0], false)
	h.gh.SetPermission(testFull, "dev", "write")
	h.send("pull_request", "r-1", h.pullPayload("synchronize", 2, h.repo.heads[0], false))
	h.waitFor("the runs", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() })
	ids := regexp.MustCompile(`/\d+(/|$)`)
	var got []string
	for _, r := range h.gh.Requests()[h.base:] {
		got = append(got, r.Method+" "+ids.ReplaceAllString(r.Path, "/N$1"))
	}
	want := []string{
		"POST /app/installations/N/access_tokens",            // App: the installation token
		"GET /repos/octo/hello/collaborators/dev/permission", // App: may the author's code run?
		"POST /repos/octo/hello/check-runs",                  // App: its run, queued
		"PATCH /repos/octo/hello/check-runs/N",               // App: its run, in progress
		"POST /repos/octo/hello/check-runs",                  // session: render
		"POST /repos/octo/hello/check-runs",                  // session: gate
		"GET /repos/octo/hello/issues/N/comments",            // session: a comment to mark "verifying"? (none yet)
		"PATCH /repos/octo/hello/check-runs/N",               // session: render done
		"PATCH /repos/octo/hello/check-runs/N",               // session: gate done
		"GET /repos/octo/hello/issues/N/comments",            // session: find the comment
		"POST /repos/octo/hello/issues/N/comments",           // session: create it
		"PATCH /repos/octo/hello/check-runs/N",               // App: its run, concluded
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d requests:\n%s\nwant %d:\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

// A check_suite that names the pull request without its author makes the
// App read the pull request from the API (as GitHub answers it: user,
// base and head repositories) and decide on it: a same-repository pull
// request of an author with write access runs; one whose head is a fork
// gets the neutral run.
func TestCheckSuiteReadsThePull(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(5, h.repo.heads[0], false)
	h.addPull(6, h.repo.heads[1], true)
	suite := func(n int, head string) []byte {
		p := fixture(t, "check_suite/requested.payload.json")
		h.rewriteRepo(p)
		cs := obj(p, "check_suite")
		cs["head_sha"] = head
		cs["pull_requests"] = []any{map[string]any{"number": n}}
		return mustJSON(p)
	}
	h.send("check_suite", "s-1", suite(5, h.repo.heads[0]))
	h.send("check_suite", "s-2", suite(6, h.repo.heads[1]))
	h.waitFor("both pull requests decided", func() bool {
		return h.allDone(h.repo.heads[0], 3) && h.allDone(h.repo.heads[1], 1) && h.idle()
	})
	if got := h.runsOf(h.repo.heads[0])[RunName].Conclusion; got != "success" || v.calls.Load() != 1 {
		t.Errorf("same repository: %s after %d runs, want success after 1", got, v.calls.Load())
	}
	if got := h.runsOf(h.repo.heads[1])[RunName]; got.Conclusion != "neutral" || !strings.Contains(got.Summary, "fork") {
		t.Errorf("fork: %s %q, want neutral naming the fork", got.Conclusion, got.Summary)
	}
}
