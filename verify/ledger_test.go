package verify

import (
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks/ledger"
)

// ChecksWithGitHubLedger replaces the local ledger of DefaultChecks with
// one over GitHub's check runs, for the pull request's branches; the other
// checks stay as they are.
func TestChecksWithGitHubLedger(t *testing.T) {
	t.Parallel()
	list := ChecksWithGitHubLedger(github.NewClient(nil), "formula-code", "datasmith", "main", "release/template-v1")()
	def := DefaultChecks()
	if len(list) != len(def) {
		t.Fatalf("%d checks; want %d", len(list), len(def))
	}
	found := false
	for i, c := range list {
		if c.Name() != def[i].Name() {
			t.Errorf("check %d is %s; want %s", i, c.Name(), def[i].Name())
		}
		if l, ok := c.(*ledger.Check); ok {
			found = true
			gh, isGH := l.Source.(*ledger.GitHub)
			if !isGH || gh.Owner != "formula-code" || gh.Repo != "datasmith" || l.BaseRef != "main" || l.HeadRef != "release/template-v1" || l.LocalVerify != nil {
				t.Errorf("ledger %+v", l)
			}
		}
	}
	if !found {
		t.Error("no ledger check")
	}
}
