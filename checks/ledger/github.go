package ledger

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// GitHub is a Source over GitHub's REST API (go-github v62): the check runs
// of a commit, and the head of a pull request. The Action passes its
// token's client, the App an installation client.
type GitHub struct {
	Client      *github.Client
	Owner, Repo string
}

// maxRunPages bounds the pages of check runs read for one commit.
const maxRunPages = 10

// CheckRunsAt implements Source: GET /repos/{owner}/{repo}/commits/{sha}/check-runs.
func (g *GitHub) CheckRunsAt(ctx context.Context, sha string) ([]Run, error) {
	opt := &github.ListCheckRunsOptions{Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}}
	var out []Run
	for range maxRunPages {
		res, resp, err := g.Client.Checks.ListCheckRunsForRef(ctx, g.Owner, g.Repo, sha, opt)
		if err != nil {
			return nil, fmt.Errorf("list the check runs of %s: %w", short(sha), err)
		}
		for _, c := range res.CheckRuns {
			r := Run{Name: c.GetName(), HeadSHA: c.GetHeadSHA(), Status: c.GetStatus(), Conclusion: c.GetConclusion(), URL: c.GetHTMLURL()}
			if t := c.CompletedAt; t != nil {
				r.Completed = t.Time
			}
			out = append(out, r)
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}

// PullHead implements PullHeads: GET /repos/{owner}/{repo}/pulls/{number}.
// A number that is no pull request gives "".
func (g *GitHub) PullHead(ctx context.Context, number int) (string, error) {
	pr, resp, err := g.Client.PullRequests.Get(ctx, g.Owner, g.Repo, number)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "", nil // a number in a merge message that is no pull request here
	}
	if err != nil {
		return "", fmt.Errorf("get pull request #%d: %w", number, err)
	}
	return pr.GetHead().GetSHA(), nil
}
