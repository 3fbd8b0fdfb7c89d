package verify

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/config"
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

// TestLedgerAgreesWithTheGate: the ledger's re-verification of a merged
// pull request concludes what the pull request's gate concludes on a
// gated branch, for every kind of outcome; not run, timed out and
// cancelled fail it, skipped does not. A policy that names no gated
// branch, or one that could not be read, does not make the ledger skip.
func TestLedgerAgreesWithTheGate(t *testing.T) {
	t.Parallel()
	res := func(cs ...checks.Conclusion) []checks.Result {
		var out []checks.Result
		for i, c := range cs {
			out = append(out, checks.Result{Check: fmt.Sprintf("c%d", i), Conclusion: c})
		}
		return out
	}
	cases := []struct {
		name    string
		results []checks.Result
		want    checks.GateConclusion
	}{
		{"no results", nil, checks.GatePassed},
		{"all passed", res(checks.Success, checks.Success), checks.GatePassed},
		{"passed and skipped", res(checks.Success, checks.Skipped), checks.GatePassed},
		{"only skipped", res(checks.Skipped, checks.Skipped), checks.GatePassed},
		{"one failed", res(checks.Success, checks.Failure), checks.GateFailed},
		{"not run", res(checks.Success, checks.NotRun), checks.GateFailed},
		{"not run among skipped", res(checks.Skipped, checks.NotRun), checks.GateFailed},
		{"timed out", res(checks.TimedOut), checks.GateFailed},
		{"cancelled", res(checks.Success, checks.Cancelled), checks.GateFailed},
	}
	policies := map[string]Policy{
		"gates main":     {Branches: []string{"main"}, Config: config.Default()},
		"gates nothing":  {Config: config.Default()},
		"unread":         {Err: errors.New("no config"), Config: config.Default()},
		"gates releases": {Branches: []string{"release/*"}, Config: config.Default()},
	}
	for _, c := range cases {
		gate := checks.GateOf(c.results, checks.Gate{BaseRef: "main", Branches: []string{"main"}})
		if gate.Conclusion != c.want {
			t.Fatalf("%s: the gate concludes %s; want %s", c.name, gate.Conclusion, c.want)
		}
		for pname, pol := range policies {
			got := ledgerGate(c.results, pol)
			if got.Conclusion != gate.Conclusion {
				t.Errorf("%s, policy %s: the ledger concludes %s, the gate %s", c.name, pname, got.Conclusion, gate.Conclusion)
			}
			if len(got.Blocking) != len(gate.Blocking) {
				t.Errorf("%s, policy %s: the ledger blocks on %v, the gate on %v", c.name, pname, got.Blocking, gate.Blocking)
			}
		}
	}
}

// TestLedgerVerifyIsTheGate runs LedgerVerify on a real repository: a
// merged head that renders passes, and the same with the render check
// not run (the head turns it off, the base has it on) fails, as its gate
// did.
func TestLedgerVerifyIsTheGate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, head string
		want       string
	}{
		{"the head keeps the checks", cfgA, "success"},
		{"the head turns render off", cfgA + "checks: {disable: [render]}\n", "failure"},
	} {
		r := repoWith(t, cfgA, c.head)
		got, err := LedgerVerify(context.Background(), r.Dir(), "main", "pr")
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: LedgerVerify = %s; want %s", c.name, got, c.want)
		}
	}
}
