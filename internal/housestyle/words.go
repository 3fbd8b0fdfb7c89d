package housestyle

import (
	"fmt"
	"regexp"
	"strings"
)

// banned lists the words the house format never uses, each with the
// inflections it catches.
var banned = []struct {
	word string
	re   *regexp.Regexp
}{
	{"contract", regexp.MustCompile(`(?i)\bcontract(?:s|ed|ing|ual)?\b`)},
	{"fail loud", regexp.MustCompile(`(?i)\bfail(?:s|ed|ing)?[\s-]+loud(?:ly)?\b`)},
	{"fail closed", regexp.MustCompile(`(?i)\bfail(?:s|ed|ing)?[\s-]+closed?\b`)},
	{"straddle", regexp.MustCompile(`(?i)\bstraddl(?:e|es|ed|ing)\b`)},
	{"owns", regexp.MustCompile(`(?i)\bowns\b`)},
	{"surface", regexp.MustCompile(`(?i)\bsurfac(?:e|es|ed|ing)\b`)},
	{"guard", regexp.MustCompile(`(?i)\bguard(?:s|ed|ing)?\b`)},
	{"load-bearing", regexp.MustCompile(`(?i)\bload[\s-]+bearing\b`)},
	{"robust", regexp.MustCompile(`(?i)\brobust(?:ly|ness)?\b`)},
	{"seamless", regexp.MustCompile(`(?i)\bseamless(?:ly)?\b`)},
	{"footgun", regexp.MustCompile(`(?i)\bfoot[\s-]?guns?\b`)},
}

var (
	hostRe = regexp.MustCompile(`(?i)\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|org|io|net|dev|ai|app|edu|gov)\b`)
	aiRes  = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bgenerated\s+(?:with|by)\b`),
		regexp.MustCompile(`(?i)\bco-authored-by\b`),
		regexp.MustCompile(`\bAI\b`),
		regexp.MustCompile("\U0001F916"),
	}
)

// checkWords applies the banned-word, host-name and AI rules to every unit.
// Phrases may cross line breaks, so each unit is matched as one text.
func checkWords(us []unit) []Problem {
	var ps []Problem
	for _, u := range us {
		words, wordLines := join(u.parts, func(p part) string { return p.words })
		hosts, hostLines := join(u.parts, func(p part) string { return p.hosts })
		for _, b := range banned {
			for _, m := range b.re.FindAllStringIndex(words, -1) {
				ps = append(ps, Problem{wordLines(m[0]), RuleBannedWord, fmt.Sprintf("%q: the house format does not use %q", words[m[0]:m[1]], b.word)})
			}
		}
		for _, m := range hostRe.FindAllStringIndex(hosts, -1) {
			ps = append(ps, Problem{hostLines(m[0]), RuleHostName, fmt.Sprintf("host name %q: no host names outside code", hosts[m[0]:m[1]])})
		}
		for _, re := range aiRes {
			for _, m := range re.FindAllStringIndex(words, -1) {
				ps = append(ps, Problem{wordLines(m[0]), RuleAIAttribution, fmt.Sprintf("%q: no AI attribution", words[m[0]:m[1]])})
			}
		}
	}
	return ps
}

// join joins the parts with spaces and returns a function that maps an
// offset of the joined text to its line.
func join(parts []part, text func(part) string) (string, func(int) int) {
	var b strings.Builder
	starts := make([]int, len(parts))
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		starts[i] = b.Len()
		b.WriteString(text(p))
	}
	return b.String(), func(off int) int {
		n := parts[0].line
		for i, s := range starts {
			if s <= off {
				n = parts[i].line
			}
		}
		return n
	}
}
