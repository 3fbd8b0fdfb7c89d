package publish

import (
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

// Output is the output of one check run, within GitHub's limits.
//
// Deprecated: forwarding until callers move; use report.RunOutput.
type Output = report.RunOutput

// Annotation is one check-run annotation.
//
// Deprecated: forwarding until callers move; use report.Annotation.
type Annotation = report.Annotation

// OutputOf builds the check-run output of one result.
//
// Deprecated: forwarding until callers move; use report.CheckRun.
func OutputOf(res checks.Result, command string, maxAnnotations int) Output {
	return report.CheckRun(res, command, maxAnnotations)
}

// LinksOf is what the comment links to: the repository's page (serverURL,
// such as GITHUB_SERVER_URL, with owner/repo), the page of each check
// run that Start made, and runURL, the workflow run's page ("" when there
// is none, as in the App). Set it as the report's Links after Start and
// before rendering the comment; runs may be nil.
func LinksOf(serverURL, owner, repo string, runs *Runs, runURL string) report.Links {
	l := report.Links{Run: runURL}
	if serverURL != "" && owner != "" && repo != "" {
		l.Repo = strings.TrimRight(serverURL, "/") + "/" + owner + "/" + repo
	}
	if runs != nil {
		l.CheckRuns = map[string]string{}
		for _, info := range runs.Infos() {
			if info.URL != "" {
				l.CheckRuns[info.Check] = info.URL
			}
		}
	}
	return l
}
