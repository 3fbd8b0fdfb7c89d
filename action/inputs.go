package action

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/publish"
)

// Inputs are the Action's inputs (action.yml).
type Inputs struct {
	Token  string
	Config string
	Base   string // overrides pull_request.base.sha
	Head   string // overrides pull_request.head.sha
	// CommentMode says when the comment is published.
	CommentMode publish.CommentMode
	// Report is the JSON report to publish on workflow_run, relative to
	// the workspace.
	Report string
	// FailOn holds the check conclusions that fail the job.
	FailOn []checks.Conclusion
	// CacheDir is the folder of kept results, relative to the workspace;
	// empty: nothing is kept.
	CacheDir string
}

// DefaultFailOn is the default of the fail-on input: every conclusion
// except success and skipped fails the job.
const DefaultFailOn = "failure,timed_out,not_run,cancelled"

var failOnValues = []checks.Conclusion{checks.Failure, checks.TimedOut, checks.NotRun, checks.Cancelled, checks.Skipped}

// readInputs reads and checks the inputs; errors name the input.
func readInputs(get func(string) string) (Inputs, error) {
	in := Inputs{
		Token:  get("github-token"),
		Config: get("config"),
		Base:   get("base"),
		Head:   get("head"),
	}
	if in.Config == "" {
		in.Config = config.Path
	}
	if strings.HasPrefix(in.Config, "/") || strings.HasPrefix(in.Config, "-") || strings.Contains("/"+in.Config+"/", "/../") {
		return in, fmt.Errorf("input config: %q must be a path inside the repository, such as %s", in.Config, config.Path)
	}
	for name, v := range map[string]string{"base": in.Base, "head": in.Head} {
		if strings.HasPrefix(v, "-") || strings.ContainsAny(v, " \t\n") {
			return in, fmt.Errorf("input %s: %q is not a git revision", name, v)
		}
	}
	var err error
	if in.CommentMode, err = publish.ParseCommentMode(get("comment-mode")); err != nil {
		return in, fmt.Errorf("input comment-mode: %w", err)
	}
	if in.Report = strings.TrimSpace(get("report")); in.Report != "" {
		if _, err := safefile.Inside(in.Report); err != nil {
			return in, fmt.Errorf("input report: %q must be a path inside the workspace: %w", in.Report, err)
		}
	}
	if in.CacheDir = strings.TrimSpace(get("cache-dir")); in.CacheDir != "" {
		if _, err := safefile.Inside(in.CacheDir); err != nil {
			return in, fmt.Errorf("input cache-dir: %q must be a path inside the workspace, such as .template-verify-cache: %w", in.CacheDir, err)
		}
	}
	if in.FailOn, err = parseFailOn(get("fail-on")); err != nil {
		return in, fmt.Errorf("input fail-on: %w", err)
	}
	return in, nil
}

// parseFailOn reads a list of conclusions separated by commas, spaces or
// new lines. "none" alone means no conclusion fails the job.
func parseFailOn(v string) ([]checks.Conclusion, error) {
	if strings.TrimSpace(v) == "" {
		v = DefaultFailOn
	}
	words := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
	if len(words) == 1 && strings.EqualFold(words[0], "none") {
		return nil, nil
	}
	var out []checks.Conclusion
	for _, w := range words {
		c := checks.Conclusion(strings.ToLower(w))
		if !slices.Contains(failOnValues, c) {
			return nil, fmt.Errorf("%q is not one of %v, or none", w, failOnValues)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// failsJob reports whether a result fails the job under failOn.
func failsJob(results []checks.Result, failOn []checks.Conclusion) []string {
	var out []string
	for _, r := range results {
		if slices.Contains(failOn, r.Conclusion) {
			out = append(out, r.Check+" "+string(r.Conclusion))
		}
	}
	return out
}
