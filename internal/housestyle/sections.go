package housestyle

import (
	"fmt"
	"regexp"
	"strings"
)

// checkSections enforces the known sections, their order, and one of each.
func checkSections(lines []line) []Problem {
	var ps []Problem
	order := map[string]int{}
	for i, s := range Sections {
		order[strings.ToLower(s)] = i
	}
	last := -1
	seen := map[string]int{}
	for _, l := range lines {
		switch {
		case l.kind == kindSetext:
			ps = append(ps, Problem{l.n, RuleSection, "a line of = or - under text makes a heading; use a \"## \" heading, or leave a blank line before a rule line"})
		case l.kind == kindHeading && l.level == 1:
			ps = append(ps, Problem{l.n, RuleSection, fmt.Sprintf("heading %q: the house format has no \"# \" headings; sections are \"## \" headings", l.heading)})
		case l.kind == kindHeading && l.level == 2:
			name := strings.ToLower(strings.TrimSpace(l.heading))
			idx, ok := order[name]
			switch {
			case !ok:
				ps = append(ps, Problem{l.n, RuleSection, fmt.Sprintf("unknown section %q; the sections are %s", l.heading, strings.Join(Sections, ", "))})
			case seen[name] > 0:
				ps = append(ps, Problem{l.n, RuleSection, fmt.Sprintf("section %q again; it is first at line %d", l.heading, seen[name])})
			case idx < last:
				ps = append(ps, Problem{l.n, RuleSection, fmt.Sprintf("section %q comes after %q; the order is %s", l.heading, Sections[last], strings.Join(Sections, ", "))})
			}
			if ok && seen[name] == 0 {
				seen[name] = l.n
				if idx > last {
					last = idx
				}
			}
		}
	}
	return ps
}

var footerTagRe = regexp.MustCompile(`(?i)^\s*<(sub|sup|small)\b`)

// checkFooter reports a rule line or small print in the last section.
func checkFooter(lines []line) []Problem {
	start := -1
	for i, l := range lines {
		if l.kind == kindHeading && l.level == 2 {
			start = i
		}
	}
	if start < 0 {
		return nil
	}
	var ps []Problem
	for _, l := range lines[start+1:] {
		switch {
		case l.kind == kindBreak:
			ps = append(ps, Problem{l.n, RuleFooter, "a rule line in the last section starts a footer; the comment ends with its last section"})
		case l.kind == kindHTML && footerTagRe.MatchString(l.raw):
			ps = append(ps, Problem{l.n, RuleFooter, "small print in the last section is a footer; the comment ends with its last section"})
		}
	}
	return ps
}

// checkFences reports a fence that does not close. Opening and closing
// lines alternate, so an odd one left at the end is open.
func checkFences(lines []line) []Problem {
	open := 0
	for _, l := range lines {
		if l.kind != kindFence {
			continue
		}
		if open == 0 {
			open = l.n
		} else {
			open = 0
		}
	}
	if open != 0 {
		return []Problem{{open, RuleFence, "this code fence does not close"}}
	}
	return nil
}
