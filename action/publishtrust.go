package action

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
)

// forkReportNote marks every result that the publisher shows from a
// fork's report: the check runs' summaries and the comment.
const forkReportNote = "These results were reported by the pull request's own job, not verified by a trusted run: " +
	"a pull request from a fork runs its own version of the workflow file, so its job can upload any report."

// forkGate is the gate of a fork's report that passes: action_required,
// which blocks the merge (GitHub counts neutral and skipped as passed).
var forkGate = &checks.Untrusted{
	Title: "A fork's own report cannot pass the gate",
	Summary: forkReportNote + "\n\n" +
		"A failing report fails the gate, but a passing one cannot pass it. To get a verdict that can, a maintainer reads the change first, then either " +
		"comments `/template-verify` on the pull request (where the template-verify App is installed, it verifies the pull request itself and publishes the gate), " +
		"or re-runs the verification in a trusted workflow: one whose workflow file a maintainer has read, not one the fork can change.",
}

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

// markForkResults is a copy of rep whose results say, in the title and
// first in the summary, that the pull request's own job reported them.
func markForkResults(rep *report.Report) *report.Report {
	out := *rep
	out.Results = slices.Clone(rep.Results)
	for i, res := range out.Results {
		title := res.Title
		if title == "" {
			title = fmt.Sprintf("%s %s", res.Check, report.Word(res.Conclusion))
		}
		out.Results[i].Title = "Reported by the PR's job: " + title
		out.Results[i].Summary = forkReportNote + "\n\n" + res.Summary
	}
	return &out
}

// forkBanner goes right under the comment's headline.
const forkBanner = "> [!WARNING]\n> " + forkReportNote +
	" The gate `template-verify / gate` does not pass from it: a maintainer gets a trusted verdict by reading the change and then commenting `/template-verify`, " +
	"or by re-running the verification in a trusted workflow.\n"
