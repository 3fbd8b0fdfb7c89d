package verify

import (
	"context"
	"slices"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/ledger"
)

// ledgerCheck is the ledger of DefaultChecks: it re-verifies each merged
// head on this machine (LedgerVerify).
func ledgerCheck() checks.Check {
	return &ledger.Check{LocalVerify: LedgerVerify}
}

// ChecksWithLedger returns a builder for Options.Checks: DefaultChecks with
// the ledger judging the pull request from headRef into baseRef (branch
// names) by the check runs src gives. The Action and the App pass
// &ledger.GitHub{Client: their client, Owner: ..., Repo: ...} and the pull
// request's base.ref and head.ref.
func ChecksWithLedger(src ledger.Source, baseRef, headRef string) func() []checks.Check {
	return func() []checks.Check {
		list := DefaultChecks()
		for i, c := range list {
			if c.Name() == ledger.Name {
				list[i] = &ledger.Check{Source: src, BaseRef: baseRef, HeadRef: headRef}
			}
		}
		return list
	}
}

// withoutLedger is DefaultChecks without the ledger: a merged pull
// request's own verification has no ledger.
func withoutLedger() []checks.Check {
	return slices.DeleteFunc(DefaultChecks(), func(c checks.Check) bool { return c.Name() == ledger.Name })
}

// LedgerVerify verifies one merged pull request again, from the release
// branch before its merge (base) to the head it merged, and returns what
// its gate would conclude (checks.GateOf with the policy read at base):
// success or failure.
func LedgerVerify(ctx context.Context, repo, base, head string) (string, error) {
	rep, pol, err := run(ctx, Options{RepoDir: repo, Base: base, Head: head, Checks: withoutLedger})
	if err != nil {
		return "", err
	}
	return string(ledgerGate(rep.Results, pol).Conclusion), nil
}

// ledgerGate is the gate over the results of a merged pull request's
// re-verification. It applies whatever the branch: the ledger asks
// whether the results pass, and the gate's rule says which do.
func ledgerGate(results []checks.Result, pol Policy) checks.GateVerdict {
	g := pol.Gate("")
	g.AnyBranch = true
	return checks.GateOf(results, g)
}

// ChecksWithGitHubLedger is ChecksWithLedger over GitHub's API: the check
// runs of owner/repo through client (the Action's token client or an App
// installation client; it needs checks: read and pull_requests: read).
func ChecksWithGitHubLedger(client *github.Client, owner, repo, baseRef, headRef string) func() []checks.Check {
	return ChecksWithLedger(&ledger.GitHub{Client: client, Owner: owner, Repo: repo}, baseRef, headRef)
}
