package publish

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

// Output is the output of one check run, within GitHub's limits.
type Output struct {
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
	// Unannotated counts findings with a file and line that got no
	// annotation because of the annotation limit.
	Unannotated int
}

// Annotation is one check-run annotation.
type Annotation struct {
	Path      string
	StartLine int
	EndLine   int
	Level     string // notice, warning or failure
	Title     string
	Message   string
	Details   string
}

// OutputOf builds the check-run output of one result. command is the
// command line that repeats the run; maxAnnotations <= 0 means
// DefaultMaxAnnotations.
func OutputOf(res checks.Result, command string, maxAnnotations int) Output {
	if maxAnnotations <= 0 {
		maxAnnotations = DefaultMaxAnnotations
	}
	out := Output{Title: titleOf(res)}
	all := annotationsOf(res.Findings)
	if len(all) > maxAnnotations {
		out.Unannotated = len(all) - maxAnnotations
		all = all[:maxAnnotations]
	}
	out.Annotations = all
	out.Summary, _ = cutMarkdown(summaryOf(res, command), MaxOutputBytes, inBytes)
	out.Text = cutText(textBlocks(res, out.Unannotated, maxAnnotations), MaxOutputBytes, command)
	return out
}

// titleOf is the check run's title: the result's title, else the check
// and its conclusion; one line, at most MaxTitleChars.
func titleOf(res checks.Result) string {
	t := plain(res.Title)
	if t == "" {
		t = fmt.Sprintf("%s %s", plain(res.Check), report.Word(res.Conclusion))
	}
	return CutChars(t, MaxTitleChars)
}

// summaryOf writes the summary: the check's own summary, its figures, its
// notes, and the command that repeats the run.
func summaryOf(res checks.Result, command string) string {
	var parts []string
	for _, p := range strings.Split(strings.ReplaceAll(res.Summary, "\r\n", "\n"), "\n\n") {
		if p = prose(p); p != "" {
			parts = append(parts, escapeStart(p))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("The %s check %s.", prose(res.Check), report.Word(res.Conclusion)))
	}
	if res.Duration > 0 {
		parts = append(parts, fmt.Sprintf("The check took %s.", seconds(res.Duration)))
	}
	if len(res.Figures) > 0 {
		var lines []string
		for _, f := range res.Figures {
			lines = append(lines, "- "+figure(f))
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if len(res.Notes) > 0 {
		lines := []string{"Notes:", ""}
		for _, n := range res.Notes {
			lines = append(lines, "- "+prose(n))
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if c := code(command); c != "" {
		parts = append(parts, "Run "+c+" to repeat this verification.")
	}
	return strings.Join(parts, "\n\n")
}

func figure(f checks.Figure) string {
	s := prose(f.Value)
	if l := prose(f.Label); l != "" {
		s = l + ": " + s
	}
	if c := code(f.Command); c != "" {
		s += " (" + c + ")"
	}
	return s
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

// annotationsOf makes one annotation per finding with a file and a line,
// failures first, then warnings, then notices, each in check order.
func annotationsOf(fs []checks.Finding) []Annotation {
	var out []Annotation
	for _, f := range fs {
		if a, ok := annotationOf(f); ok {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b Annotation) int { return levelRank(a.Level) - levelRank(b.Level) })
	return out
}

func annotationOf(f checks.Finding) (Annotation, bool) {
	p := markdown.Clean(f.Path)
	if p == "" || f.Line < 1 {
		return Annotation{}, false
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return Annotation{}, false
	}
	a := Annotation{
		Path:      p,
		StartLine: f.Line,
		EndLine:   max(f.EndLine, f.Line),
		Level:     levelOf(f.Level),
		Title:     CutChars(plain(f.Title), MaxTitleChars),
		Message:   strings.TrimSpace(markdown.Clean(f.Message)),
		Details:   markdown.Clean(f.Details),
	}
	if a.Message == "" {
		a.Message = plain(f.Title)
	}
	if a.Message == "" {
		a.Message = "The check found a problem here."
	}
	a.Message = CutBytes(a.Message, MaxAnnotationBytes, "\n"+ellipsis+" (cut to 64 KiB)")
	a.Details = CutBytes(a.Details, MaxAnnotationBytes, "\n"+ellipsis+" (cut to 64 KiB)")
	return a, true
}

func levelOf(l checks.Level) string {
	switch l {
	case checks.LevelFailure, checks.LevelWarning:
		return string(l)
	}
	return string(checks.LevelNotice)
}

func levelRank(level string) int {
	switch level {
	case string(checks.LevelFailure):
		return 0
	case string(checks.LevelWarning):
		return 1
	}
	return 2
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
