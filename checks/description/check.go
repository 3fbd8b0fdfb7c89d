package description

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/housestyle"
	"github.com/formula-code/template-verify/internal/words"
)

// Name is the check's name.
const Name = "description"

// Check is the description check.
type Check struct{}

// New returns the description check.
func New() *Check { return &Check{} }

// Name implements checks.Check.
func (*Check) Name() string { return Name }

// Run implements checks.Check.
func (*Check) Run(_ context.Context, in *checks.Input) checks.Result {
	res := checks.Result{Check: Name}
	desc := strings.ReplaceAll(in.Description, "\r\n", "\n")
	if strings.TrimSpace(desc) == "" {
		res.Conclusion = checks.Skipped
		res.Title = "No PR description to check"
		res.Summary = "The run has no PR description: the pull request's body is empty, or run was called without --description FILE. The house format was not checked."
		return res
	}
	level := checks.LevelWarning
	if config.DescriptionFails(in.BaseConfig, in.Config) {
		level = checks.LevelFailure
	}
	ignored := ignoredRules(in.BaseConfig, in.Config)
	lines := strings.Count(desc, "\n") + 1
	byRule := map[string][]string{}
	var rules []string
	for _, p := range housestyle.Lint(desc) {
		if slices.Contains(ignored, p.Rule) {
			continue
		}
		res.Findings = append(res.Findings, checks.Finding{
			Line:    p.Line,
			Level:   level,
			Title:   "PR description: " + p.Rule,
			Message: fmt.Sprintf("Line %d of the PR description breaks the %s rule: %s", p.Line, p.Rule, p.Msg),
		})
		if _, ok := byRule[p.Rule]; !ok {
			rules = append(rules, p.Rule)
		}
		byRule[p.Rule] = append(byRule[p.Rule], strconv.Itoa(p.Line))
	}
	res.Figures = []checks.Figure{
		{Label: "PR description lines checked", Value: strconv.Itoa(lines)},
		{Label: "House-format problems", Value: strconv.Itoa(len(res.Findings))},
	}
	if len(ignored) > 0 {
		res.Notes = append(res.Notes, "The config ignores these rules: "+strings.Join(ignored, ", ")+".")
	}
	if len(res.Findings) == 0 {
		res.Conclusion = checks.Success
		res.Title = "The PR description follows the house format"
		res.Summary = fmt.Sprintf("The %d lines of the PR description break no rule of the house format.", lines)
		return res
	}
	slices.Sort(rules)
	t := checks.Table{Title: "House-format rules the PR description breaks", Header: []string{"Rule", "Lines"}}
	for _, r := range rules {
		t.Rows = append(t.Rows, []string{r, strings.Join(byRule[r], ", ")})
	}
	res.Tables = []checks.Table{t}
	n := len(res.Findings)
	res.Title = fmt.Sprintf("The PR description breaks the house format in %s", plural(n, "place"))
	if level == checks.LevelFailure {
		res.Conclusion = checks.Failure
		res.Summary = fmt.Sprintf("The PR description breaks %s of the house format. The config sets description.level to fail, so each is a failure.", plural(len(rules), "rule"))
		return res
	}
	res.Conclusion = checks.Success
	res.Summary = fmt.Sprintf("The PR description breaks %s of the house format. Each is a warning; description.level: fail makes them failures.", plural(len(rules), "rule"))
	return res
}

// ignoredRules are the rules the head ignores and the base ignores too:
// the head cannot drop a rule the base checks. Without a base config the
// head's list holds.
func ignoredRules(base, head *config.Config) []string {
	var hd []string
	if head != nil && head.Description != nil {
		hd = head.Description.Ignore
	}
	if base == nil {
		return slices.Clone(hd)
	}
	var out []string
	for _, r := range hd {
		if base.Description != nil && slices.Contains(base.Description.Ignore, r) {
			out = append(out, r)
		}
	}
	return out
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count
