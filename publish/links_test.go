package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestLinksOf gives the comment the pages of the check runs that Start
// made on the fake GitHub.
func TestLinksOf(t *testing.T) {
	e := setup(t, true)
	runs, err := e.pub.Start(context.Background(), []string{"render", "restore"})
	if err != nil {
		t.Fatal(err)
	}
	l := linksOf("https://github.invalid/", "octo", "hello", runs, "https://github.invalid/octo/hello/actions/runs/9")
	if l.Repo != "https://github.invalid/octo/hello" || l.Run != "https://github.invalid/octo/hello/actions/runs/9" {
		t.Errorf("links %+v", l)
	}
	for _, c := range []string{"render", "restore", checks.GateCheck} {
		if !strings.HasPrefix(l.CheckRuns[c], "http") {
			t.Errorf("no page for the check run of %s: %+v", c, l.CheckRuns)
		}
	}
	if got := linksOf("", "octo", "hello", nil, ""); got.Repo != "" || got.CheckRuns != nil {
		t.Errorf("links without a server: %+v", got)
	}
}
