package app

import (
	"os"
	"path/filepath"
	"testing"
)

// TestJobKeepsTheHeadBranch: the release ledger applies to a pull request
// from a release branch, so the job must carry the head branch's name.
func TestJobKeepsTheHeadBranch(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(fixturesDir, "pull_request/synchronize.payload.json"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := decodeEvent("pull_request", b)
	if err != nil {
		t.Fatal(err)
	}
	if j.HeadRef != "changes" || j.BaseRef != "master" {
		t.Fatalf("head ref %q, base ref %q; want changes, master", j.HeadRef, j.BaseRef)
	}
}
