package housestyle

import (
	"fmt"
	"sort"
)

// Rule names, as they appear in Problem.Rule.
const (
	RuleSection        = "section"
	RuleSentenceLength = "sentence-length"
	RuleBannedWord     = "banned-word"
	RuleHostName       = "host-name"
	RuleAIAttribution  = "ai-attribution"
	RuleFooter         = "footer"
	RuleMermaid        = "mermaid"
	RuleFence          = "fence"
)

// Limits of words in one sentence.
const (
	MaxWords     = 25 // prose
	MaxStepWords = 20 // the first paragraph of a numbered step
)

// Sections lists the known sections in their order.
var Sections = []string{"Purpose", "How it works", "Changes", "Usage", "Verification", "Notes"}

// Problem is one broken rule at a line of the input.
type Problem struct {
	Line int    // 1-based
	Rule string // one of the Rule constants
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%d: %s: %s", p.Line, p.Rule, p.Msg) }

// Lint checks markdown against the house format and returns the problems
// ordered by line and rule. It never panics, whatever the input.
func Lint(markdown string) []Problem {
	lines := scan(markdown)
	var ps []Problem
	ps = append(ps, checkSections(lines)...)
	ps = append(ps, checkFooter(lines)...)
	ps = append(ps, checkFences(lines)...)
	ps = append(ps, checkMermaid(lines)...)
	us := units(lines)
	ps = append(ps, checkSentences(us)...)
	ps = append(ps, checkWords(us)...)
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Rule < ps[j].Rule
	})
	return ps
}
