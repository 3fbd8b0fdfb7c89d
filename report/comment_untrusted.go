package report

import (
	"fmt"
	"slices"
	"strings"
)

// UntrustedNote says that pull-request code made a report: a fork's own
// job uploaded it. It marks every result shown from such a report.
const UntrustedNote = "These results were reported by the pull request's own job, not verified by a trusted run: " +
	"a pull request from a fork runs its own version of the workflow file, so its job can upload any report."

// The gate of untrusted results that pass: action_required, which blocks
// the merge (GitHub counts neutral and skipped as passed).
const (
	untrustedGateTitle   = "A fork's own report cannot pass the gate"
	untrustedGateSummary = UntrustedNote + "\n\n" +
		"A failing report fails the gate, but a passing one cannot pass it. To get a verdict that can, a maintainer reads the change first, then either " +
		"comments `/template-verify` on the pull request (where the template-verify App is installed, it verifies the pull request itself and publishes the gate), " +
		"or re-runs the verification in a trusted workflow: one whose workflow file a maintainer has read, not one the fork can change."
)

// untrustedBanner goes right under the comment's headline.
const untrustedBanner = "> [!WARNING]\n> " + UntrustedNote +
	" The gate `template-verify / gate` does not pass from it: a maintainer gets a trusted verdict by reading the change and then commenting `/template-verify`, " +
	"or by re-running the verification in a trusted workflow.\n"

// MarkUntrusted is a copy of rep whose results say, in the title and first
// in the summary, that the pull request's own job reported them.
func MarkUntrusted(rep *Report) *Report {
	out := *rep
	out.Results = slices.Clone(rep.Results)
	for i, res := range out.Results {
		title := res.Title
		if title == "" {
			title = fmt.Sprintf("%s %s", res.Check, Word(res.Conclusion))
		}
		out.Results[i].Title = "Reported by the PR's job: " + title
		out.Results[i].Summary = UntrustedNote + "\n\n" + res.Summary
	}
	return &out
}

// UntrustedMarkdown is the comment of a report that pull-request code
// made: Markdown with a warning under the headline, within the comment's
// limit.
func (r *Report) UntrustedMarkdown() (string, error) {
	body, err := r.MarkdownLimit(MaxCommentBytes - len(untrustedBanner) - 2)
	return withBanner(body, untrustedBanner), err
}

// withBanner puts banner after the marker line and the headline of a
// comment, as a paragraph of its own.
func withBanner(body, banner string) string {
	lines := strings.SplitAfterN(body, "\n", 3)
	if len(lines) < 3 {
		return body + "\n" + banner
	}
	return lines[0] + lines[1] + "\n" + banner + lines[2]
}
