package action

import (
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// forkRun reports whether pull-request code made the report
// (githubapi.IsFork): the run's head repository (from the event) or the
// pull request's head repository (from the API) is not this repository,
// or is unknown (a deleted fork). Such a run used the fork's own
// workflow file.
func (r *runner) forkRun(wr workflowRun, pr *github.PullRequest) bool {
	full := r.owner + "/" + r.repo
	return !strings.EqualFold(wr.Repo, full) || githubapi.IsFork(wr.repo, wr.headRepo) ||
		!strings.EqualFold(pr.GetBase().GetRepo().GetFullName(), full) || githubapi.IsFork(pr.GetBase().GetRepo(), pr.GetHead().GetRepo())
}
