package restore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/markdown"
)

// PolicyChange lists the restore patterns that the head adds to and
// removes from the base's policy.
type PolicyChange struct {
	Added, Removed []string
}

// Empty reports whether the policy is the same.
func (c PolicyChange) Empty() bool { return len(c.Added) == 0 && len(c.Removed) == 0 }

// ComparePolicy compares the restore patterns of two configurations. A
// configuration without a restore block has no patterns.
func ComparePolicy(base, head *config.Config) PolicyChange {
	patterns := func(c *config.Config) []string {
		if c == nil || c.Restore == nil {
			return nil
		}
		return c.Restore.Patterns
	}
	b, h := patterns(base), patterns(head)
	var ch PolicyChange
	for _, p := range h {
		if !slices.Contains(b, p) && !slices.Contains(ch.Added, p) {
			ch.Added = append(ch.Added, p)
		}
	}
	for _, p := range b {
		if !slices.Contains(h, p) && !slices.Contains(ch.Removed, p) {
			ch.Removed = append(ch.Removed, p)
		}
	}
	return ch
}

// policyFinding is the warning and the note that show a policy change.
func policyFinding(in *checks.Input) (*checks.Finding, string) {
	if in.BaseConfig == nil {
		return nil, ""
	}
	ch := ComparePolicy(in.BaseConfig, in.Config)
	if ch.Empty() {
		return nil, ""
	}
	note := fmt.Sprintf("The head changes the restore policy. Patterns added: %s. Patterns removed: %s.", patternList(ch.Added), patternList(ch.Removed))
	f := &checks.Finding{
		Level:   checks.LevelWarning,
		Title:   "The restore policy changes",
		Message: fmt.Sprintf("The head adds %d and removes %d restore patterns. Check that the change is intended.", len(ch.Added), len(ch.Removed)),
		Details: "added:\n" + lines(ch.Added) + "removed:\n" + lines(ch.Removed),
	}
	f.Path = configFile(in.Config)
	return f, note
}

// patternList lists patterns as inline code by the report's rule
// (markdown.Code), which the report keeps as typed: "none" for no pattern.
func patternList(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = markdown.Code(p)
	}
	return strings.Join(q, ", ")
}

func lines(ps []string) string {
	if len(ps) == 0 {
		return "  (none)\n"
	}
	return "  " + strings.Join(ps, "\n  ") + "\n"
}
