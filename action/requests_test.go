package action

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// sessionRequests are the REST requests of the publishing session for
// one verified pull request with one check whose comment is new: the
// run of the check and the gate made in progress, then completed, then
// the comment found (none) and created. The App makes the same ones
// (app's TestRequestsOfOneVerifiedPR); it adds its own.
var sessionRequests = []string{
	"POST /repos/octo/hello/check-runs",
	"POST /repos/octo/hello/check-runs",
	// The comment to mark "verifying <sha>…": there is none yet.
	"GET /repos/octo/hello/issues/2/comments",
	"PATCH /repos/octo/hello/check-runs/1",
	"PATCH /repos/octo/hello/check-runs/2",
	"GET /repos/octo/hello/issues/2/comments",
	"POST /repos/octo/hello/issues/2/comments",
}

func TestRequestsOfOneVerifiedPR(t *testing.T) {
	t.Parallel()
	h := stubHarness(t, nil, checks.Result{Check: "render", Conclusion: checks.Success, Title: "Rendered"})
	h.checks = stubChecks("render")
	if code := h.run(); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	var got []string
	for _, r := range h.srv.Requests() {
		got = append(got, r.Method+" "+r.Path)
	}
	if strings.Join(got, "\n") != strings.Join(sessionRequests, "\n") {
		t.Errorf("%d requests:\n%s\nwant %d:\n%s", len(got), strings.Join(got, "\n"), len(sessionRequests), strings.Join(sessionRequests, "\n"))
	}
}
