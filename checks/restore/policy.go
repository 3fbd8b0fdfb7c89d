package restore

import (
	"strings"

	"github.com/formula-code/template-verify/internal/markdown"
)

// PolicyChange lists the restore patterns that the head adds to and
// removes from the base's policy.
type PolicyChange struct {
	Added, Removed []string
}

// Empty reports whether the policy is the same.
func (c PolicyChange) Empty() bool { return len(c.Added) == 0 && len(c.Removed) == 0 }

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
