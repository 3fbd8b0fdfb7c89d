package report

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// RunOutput is the output of one check run, within GitHub's limits: the
// title is plain text, the summary and text are markdown.
type RunOutput struct {
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
	// Unannotated counts findings with a file and line that got no
	// annotation because of the annotation limit.
	Unannotated int
}

// Annotation is one check-run annotation; every field is plain text.
type Annotation struct {
	Path      string
	StartLine int
	EndLine   int
	Level     string // notice, warning or failure
	Title     string
	Message   string
	Details   string
}

// The check-run text shows at most this much of one finding's details, so
// that one long finding does not push out the others; its annotation has
// up to MaxAnnotationBytes.
const maxFindingDetails = 16 << 10

// CheckRun builds the check-run output of one result: the same sentences
// as the result's part of the comment, within GitHub's limits. command is
// the command line that repeats the run; maxAnnotations <= 0 means
// DefaultMaxAnnotations.
func CheckRun(res checks.Result, command string, maxAnnotations int) RunOutput {
	res = quiet(res)
	if maxAnnotations <= 0 {
		maxAnnotations = DefaultMaxAnnotations
	}
	out := RunOutput{Title: runTitle(res)}
	all := annotations(res.Findings)
	if len(all) > maxAnnotations {
		out.Unannotated = len(all) - maxAnnotations
		all = all[:maxAnnotations]
	}
	out.Annotations = all
	out.Summary, _ = markdown.Cut(runSummary(res, command), MaxOutputBytes, markdown.Bytes)
	out.Text = cutText(textBlocks(res, out.Unannotated, maxAnnotations), MaxOutputBytes, command)
	return out
}

// Running is the output of a check run that has started: which check runs
// on which commit.
func Running(check, headSHA string) RunOutput {
	return RunOutput{
		Title:   "The check is running",
		Summary: fmt.Sprintf("template-verify runs the %s check on %s.", prose(check), code(short(headSHA))),
	}
}

// Aborted is the output of a check run that a stopped verification
// completes: why it stopped (title, plain text) and what failed (summary,
// markdown the caller escaped), within the limits.
func Aborted(title, summary string) RunOutput {
	return RunOutput{Title: markdown.CutChars(plain(title), MaxTitleChars), Summary: markdown.CutBytes(summary, MaxOutputBytes, "")}
}

// PublishStopped is the summary of the check runs that a failed create
// leaves: template-verify could not create all its check runs.
func PublishStopped(err error) RunOutput {
	return Aborted("Publishing stopped", "template-verify could not create all its check runs: "+prose(err.Error()))
}

// Refused is the short output that replaces one GitHub did not take, so
// that the run never stays in progress.
func Refused(title string, err error) RunOutput {
	return RunOutput{
		Title: markdown.CutChars(title, MaxTitleChars),
		Summary: markdown.CutBytes("GitHub did not take the full output of this check run. The pull-request comment and the job log show the report. The error: "+prose(err.Error()),
			4096, markdown.Ellipsis),
	}
}

// NoResult is the result of a check that has a check run but no result in
// the report: it did not run.
func NoResult(check string) checks.Result {
	return checks.Result{Check: check, Conclusion: checks.NotRun, Title: "The check gave no result",
		Summary: fmt.Sprintf("The verification gave no result for the %s check, so it did not run.", check)}
}

// runTitle is the check run's title: the result's title, else the check
// and its conclusion; one line, at most MaxTitleChars.
func runTitle(res checks.Result) string {
	t := plain(res.Title)
	if t == "" {
		t = fmt.Sprintf("%s %s", plain(res.Check), Word(res.Conclusion))
	}
	return markdown.CutChars(t, MaxTitleChars)
}

// runSummary writes the summary: the check's own summary, its duration,
// figures and notes, and the command that repeats the run.
func runSummary(res checks.Result, command string) string {
	s := summary(res.Summary)
	if s == "" {
		s = fmt.Sprintf("The %s check %s.", prose(res.Check), Word(res.Conclusion))
	}
	parts := []string{s}
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
			if n = prose(n); n != "" {
				lines = append(lines, "- "+sentence(n))
			}
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if c := code(command); c != "" {
		parts = append(parts, "Run "+c+" to repeat this verification.")
	}
	return paras(parts...)
}

// annotations makes one annotation per finding with a file and a line,
// failures first, then warnings, then notices, each in check order.
func annotations(fs []checks.Finding) []Annotation {
	var out []Annotation
	for _, f := range fs {
		if a, ok := annotation(f); ok {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b Annotation) int { return levelRank(a.Level) - levelRank(b.Level) })
	return out
}

func annotation(f checks.Finding) (Annotation, bool) {
	p, ok := repoPath(f.Path)
	if !ok || f.Line < 1 {
		return Annotation{}, false
	}
	a := Annotation{
		Path:      p,
		StartLine: f.Line,
		EndLine:   max(f.EndLine, f.Line),
		Level:     levelOf(f.Level),
		Title:     markdown.CutChars(plain(f.Title), MaxTitleChars),
		Message:   strings.TrimSpace(markdown.Clean(f.Message)),
		Details:   markdown.Clean(f.Details),
	}
	if a.Message == "" {
		a.Message = plain(f.Title)
	}
	if a.Message == "" {
		a.Message = "The check found a problem here."
	}
	a.Message = markdown.CutBytes(a.Message, MaxAnnotationBytes, "\n"+markdown.Ellipsis+" (cut to 64 KB)")
	a.Details = markdown.CutBytes(a.Details, MaxAnnotationBytes, "\n"+markdown.Ellipsis+" (cut to 64 KB)")
	return a, true
}

// repoPath is a finding's path as a clean path inside the repository, or
// false when it has none or points outside (absolute, "..").
func repoPath(p string) (string, bool) {
	p = markdown.Clean(p)
	if p == "" {
		return "", false
	}
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// levelOf is the level a finding shows with: failure, warning, or notice
// for any other value.
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
