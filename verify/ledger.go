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
// its gate would conclude: success when every check passed or was
// skipped, else failure.
func LedgerVerify(ctx context.Context, repo, base, head string) (string, error) {
	rep, err := Run(ctx, Options{RepoDir: repo, Base: base, Head: head, Checks: withoutLedger})
	if err != nil {
		return "", err
	}
	for _, r := range rep.Results {
		if r.Conclusion != checks.Success && r.Conclusion != checks.Skipped {
			return "failure", nil
		}
	}
	return "success", nil
}

// ChecksWithGitHubLedger is ChecksWithLedger over GitHub's API: the check
// runs of owner/repo through client (the Action's token client or an App
// installation client; it needs checks: read and pull_requests: read).
func ChecksWithGitHubLedger(client *github.Client, owner, repo, baseRef, headRef string) func() []checks.Check {
	return ChecksWithLedger(&ledger.GitHub{Client: client, Owner: owner, Repo: repo}, baseRef, headRef)
}
