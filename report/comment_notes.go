package report

import (
	"fmt"

	"github.com/formula-code/template-verify/checks"
)

// notes lists what did not run and why, each check's notes, where the
// configuration comes from, and the run's own notes. Repeats are dropped.
func notes(r *Report) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = escapeStart(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, res := range r.Results {
		add(conclusionNote(res))
		for _, n := range res.Notes {
			if n = prose(n); n != "" {
				add(fmt.Sprintf("%s: %s", prose(res.Check), sentence(n)))
			}
		}
	}
	switch r.ConfigSource {
	case "":
	case DefaultsSource:
		add("The repository has no configuration file, so the run uses the defaults.")
	default:
		add(fmt.Sprintf("The configuration comes from %s at head.", code(r.ConfigSource)))
	}
	for _, n := range r.Notes {
		add(sentence(prose(n)))
	}
	return out
}

// conclusionNote says why a check did not pass or fail: it did not run,
// was skipped, timed out or stopped. Success and Failure need no note.
func conclusionNote(res checks.Result) string {
	name := prose(res.Check)
	reason := prose(res.Title)
	if reason == "" {
		reason = prose(res.Summary)
	}
	switch res.Conclusion {
	case checks.Success, checks.Failure:
		return ""
	case checks.NotRun:
		if reason == "" {
			return fmt.Sprintf("The %s check did not run. It gives no reason.", name)
		}
		return fmt.Sprintf("The %s check did not run: %s", name, sentence(reason))
	case checks.Skipped:
		if reason == "" {
			return fmt.Sprintf("The %s check is skipped, because it has nothing to verify.", name)
		}
		return fmt.Sprintf("The %s check is skipped: %s", name, sentence(reason))
	case checks.TimedOut:
		s := fmt.Sprintf("The %s check timed out", name)
		if res.Duration > 0 {
			s += " after " + seconds(res.Duration)
		}
		if reason != "" {
			return s + ": " + sentence(reason)
		}
		return s + "."
	case checks.Cancelled:
		return fmt.Sprintf("The run stopped the %s check before it finished.", name)
	}
	return fmt.Sprintf("The %s check ends with the unknown conclusion %s, so it is not a pass.", name, code(string(res.Conclusion)))
}
