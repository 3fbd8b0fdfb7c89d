package publish

import (
	"strings"

	"github.com/formula-code/template-verify/report"
)

// linksOf is what the comment links to: the repository's page (serverURL,
// such as GITHUB_SERVER_URL, with owner/repo), the page of each check
// run that Start made, and runURL, the workflow run's page ("" when there
// is none, as in the App). Set it as the report's Links after Start and
// before rendering the comment; runs may be nil.
func linksOf(serverURL, owner, repo string, runs *checkRuns, runURL string) report.Links {
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
