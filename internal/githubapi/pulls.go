package githubapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// PullsWithHead returns the open pull requests of owner/repo whose head is
// the commit sha. GitHub's list of the pull requests of a commit also has
// closed ones and ones that only contain the commit; those are left out.
// The App (a fork's check_suite and check_run events name no pull request)
// and the Action's publisher (a fork's workflow_run lists none) both find
// the pull request of a head this way. One page of 100 is read: a head
// commit is the head of more pull requests than that in no real repository.
func PullsWithHead(ctx context.Context, client *github.Client, owner, repo, sha string) ([]*github.PullRequest, error) {
	prs, _, err := client.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("find the pull request of commit %s: %w", sha, err)
	}
	var out []*github.PullRequest
	for _, p := range prs {
		if p.GetHead().GetSHA() == sha && p.GetState() == "open" {
			out = append(out, p)
		}
	}
	return out, nil
}
