package report

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/formula-code/template-verify/checks"
)

// Links are the web pages the comment links to. Each is empty when the
// surface (Action, App, command line) does not know it; the comment then
// shows the text without a link.
type Links struct {
	// Repo is the repository's page, such as https://github.com/OWNER/REPO
	// (the server URL and the repository). File lines link to the head
	// commit under it: Repo/blob/HEAD/PATH#Lnn.
	Repo string
	// CheckRuns maps a check's name to the page of its check run.
	CheckRuns map[string]string
	// Run is the page of the workflow run (Action).
	Run string
}

// Marks that lead the verdict and the rows of the table: one for a pass,
// one for a failure, one for a check that did not run (which fails the
// gate: it is never a pass), and one for a check with nothing to verify.
const (
	markPass    = "✅"
	markFail    = "❌"
	markNotRun  = "🚫"
	markSkipped = "⚪"
)

// maxLeadFailures is how many failures the lead lists before "and N more".
const maxLeadFailures = 10

// maxLeadMessage is the longest message in the lead list, in bytes; the
// check's details below have all of it.
const maxLeadMessage = 300

// conclusionMark is the mark of a conclusion.
func conclusionMark(c checks.Conclusion) string {
	switch {
	case c == checks.Success:
		return markPass
	case c.Failed():
		return markFail
	case c == checks.Skipped:
		return markSkipped
	}
	return markNotRun
}

// headline is the first line of the comment: the mark and the verdict in
// bold, the head commit it verified, and one sentence of why.
func headline(r *Report) string {
	c := r.counts()
	var failed, notRun []string
	for _, res := range r.Results {
		switch {
		case res.Conclusion.Failed():
			failed = append(failed, prose(res.Check))
		case res.Conclusion != checks.Success && res.Conclusion != checks.Skipped:
			notRun = append(notRun, prose(res.Check))
		}
	}
	word, why := "Unknown", "The result is unknown, so it is not a pass."
	switch r.Overall {
	case checks.Success:
		word = "Passed"
		switch {
		case len(r.Templates) == 0 && c.total == 0:
			why = "This PR changes no template, so there is nothing to verify."
		case c.total == 1 && c.passed == 1:
			why = "The " + prose(r.Results[0].Check) + " check passed."
		case c.passed == c.total:
			why = fmt.Sprintf("All %d checks passed.", c.total)
		default:
			why = fmt.Sprintf("%d of %d checks passed, and %s nothing to verify.", c.passed, c.total, plural(c.total-c.passed, "check had", "checks had"))
		}
	case checks.Failure, checks.TimedOut:
		word = "Failed"
		switch {
		case r.Overall == checks.TimedOut && len(failed) == 0:
			why = "The run timed out before the checks finished."
		case len(failed) == 1 && c.total == 1:
			why = "The " + failed[0] + " check failed."
		case len(failed) > 0:
			why = fmt.Sprintf("%d of %d checks failed: %s.", len(failed), c.total, list(failed))
		default:
			why = "The run failed."
		}
	case checks.NotRun, checks.Cancelled, checks.Skipped:
		word = "Not run"
		switch {
		case r.Overall == checks.Cancelled:
			why = "The run stopped before the checks finished, so this is not a pass."
		case c.total == 0:
			why = "No check ran, so this is not a pass."
		case len(notRun) == 0:
			why = "No check had anything to verify, so this is not a pass."
		case len(notRun) == 1:
			why = "The " + notRun[0] + " check did not run, so this is not a pass. The notes say why."
		default:
			why = fmt.Sprintf("%d of %d checks did not run (%s), so this is not a pass. The notes say why.", len(notRun), c.total, list(notRun))
		}
	}
	return fmt.Sprintf("**%s %s**%s. %s", conclusionMark(r.Overall), word, r.atHead(), why)
}

// atHead names the verified head commit by its short sha, linked to the
// commit when the report knows the repository's page: " at `5398c0610bac`".
func (r *Report) atHead() string {
	sha := prose(r.Head)
	if sha == "" {
		return ""
	}
	c := code(short(sha))
	if webPage.MatchString(r.Links.Repo) && fullSha.MatchString(r.Head) {
		c = "[" + c + "](" + strings.TrimRight(r.Links.Repo, "/") + "/commit/" + r.Head + ")"
	}
	return " at " + c
}

var (
	fullSha   = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	webPage   = regexp.MustCompile(`^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~%/-]*)?$`)
	checkPage = regexp.MustCompile(`^https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9._~%/?=&#-]*$`)
)

// lineLink is the location as code, linked to the line at the head commit
// when the report knows the repository's page.
func (r *Report) lineLink(f checks.Finding, loc string) string {
	c := code(loc)
	if !webPage.MatchString(r.Links.Repo) || !fullSha.MatchString(r.Head) || f.Path == "" || f.Line < 1 {
		return c
	}
	var segs []string
	for _, s := range strings.Split(f.Path, "/") {
		if s == "" || s == "." || s == ".." {
			return c
		}
		segs = append(segs, url.PathEscape(s))
	}
	u := strings.TrimRight(r.Links.Repo, "/") + "/blob/" + r.Head + "/" + strings.Join(segs, "/") + "#L" + itoa(f.Line)
	if f.EndLine > f.Line {
		u += "-L" + itoa(f.EndLine)
	}
	return "[" + c + "](" + u + ")"
}

// linksLine links to the check runs and the workflow run that the report
// knows, or returns "".
func linksLine(r *Report) string {
	var runs []string
	for _, res := range r.Results {
		if u := r.Links.CheckRuns[res.Check]; checkPage.MatchString(u) {
			runs = append(runs, "["+bracketText(prose(res.Check))+"]("+u+")")
		}
	}
	var s []string
	if len(runs) > 0 {
		s = append(s, "Check runs: "+strings.Join(runs, ", ")+".")
	}
	if checkPage.MatchString(r.Links.Run) {
		s = append(s, "The [workflow run]("+r.Links.Run+") has the log.")
	}
	return strings.Join(s, " ")
}

// bracketText keeps link text from closing the link early (prose has
// escaped "[" already).
func bracketText(s string) string {
	return strings.ReplaceAll(s, "]", `\]`)
}

// pluralNouns are the nouns whose plural a check may write after "1".
var pluralNouns = regexp.MustCompile(`(^|[^0-9.,])1 (templates|renders|variable sets|lines|new lines|scenarios|tests|files|problems|render problems|scripts|distinct rendered scripts|sets|random sets|changes|findings|checks|failures)\b`)

// singular writes "1 template" where a check wrote "1 templates". "1 of 2
// sets" stays: the noun there counts the 2.
func singular(s string) string {
	if !strings.Contains(s, "1 ") {
		return s
	}
	return pluralNouns.ReplaceAllStringFunc(s, func(m string) string {
		return strings.TrimSuffix(m, "s")
	})
}
