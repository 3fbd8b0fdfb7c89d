package housestyle

import (
	"fmt"
	"regexp"
	"strings"
)

// banned lists the words the house format never uses, each with the
// inflections it catches.
// stem is a lower-case part of every match, tested with strings.Contains
// before the regexp runs, which keeps Lint fast.
var banned = []struct {
	word, stem string
	re         *regexp.Regexp
}{
	{"contract", "contract", regexp.MustCompile(`(?i)\bcontract(?:s|ed|ing|ual)?\b`)},
	{"fail loud", "loud", regexp.MustCompile(`(?i)\bfail(?:s|ed|ing)?[\s-]+loud(?:ly)?\b`)},
	{"fail closed", "close", regexp.MustCompile(`(?i)\bfail(?:s|ed|ing)?[\s-]+closed?\b`)},
	{"straddle", "straddl", regexp.MustCompile(`(?i)\bstraddl(?:e|es|ed|ing)\b`)},
	{"owns", "owns", regexp.MustCompile(`(?i)\bowns\b`)},
	{"surface", "surfac", regexp.MustCompile(`(?i)\bsurfac(?:e|es|ed|ing)\b`)},
	{"guard", "guard", regexp.MustCompile(`(?i)\bguard(?:s|ed|ing)?\b`)},
	{"load-bearing", "bearing", regexp.MustCompile(`(?i)\bload[\s-]+bearing\b`)},
	{"robust", "robust", regexp.MustCompile(`(?i)\brobust(?:ly|ness)?\b`)},
	{"seamless", "seamless", regexp.MustCompile(`(?i)\bseamless(?:ly)?\b`)},
	{"footgun", "gun", regexp.MustCompile(`(?i)\bfoot[\s-]?guns?\b`)},
}

// tlds are the endings the host rule knows, for its quick test.
var tlds = []string{".com", ".org", ".io", ".net", ".dev", ".ai", ".app", ".edu", ".gov"}

var (
	hostRe = regexp.MustCompile(`(?i)\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|org|io|net|dev|ai|app|edu|gov)\b`)
	aiRes  = []struct {
		stem string // lower-case, or exact for the case-sensitive "AI"
		re   *regexp.Regexp
	}{
		{"generated", regexp.MustCompile(`(?i)\bgenerated\s+(?:with|by)\b`)},
		{"co-authored", regexp.MustCompile(`(?i)\bco-authored-by\b`)},
		{"AI", regexp.MustCompile(`\bAI\b`)},
		{"\U0001F916", regexp.MustCompile("\U0001F916")},
	}
)

// checkWords applies the banned-word, host-name and AI rules to every unit.
// Phrases may cross line breaks, so each unit is matched as one text.
func checkWords(us []unit) []Problem {
	var ps []Problem
	for _, u := range us {
		words, wordLines := join(u.parts, func(p part) string { return p.words })
		hosts, hostLines := join(u.parts, func(p part) string { return p.hosts })
		lower, lowerHosts := strings.ToLower(words), strings.ToLower(hosts)
		for _, b := range banned {
			if !strings.Contains(lower, b.stem) {
				continue
			}
			for _, m := range b.re.FindAllStringIndex(words, -1) {
				ps = append(ps, Problem{wordLines(m[0]), RuleBannedWord, fmt.Sprintf("%q: the house format does not use %q", words[m[0]:m[1]], b.word)})
			}
		}
		for _, m := range hostMatches(lowerHosts, hosts) {
			ps = append(ps, Problem{hostLines(m[0]), RuleHostName, fmt.Sprintf("host name %q: no host names outside code", hosts[m[0]:m[1]])})
		}
		for _, ai := range aiRes {
			if !strings.Contains(lower, ai.stem) && !strings.Contains(words, ai.stem) {
				continue
			}
			for _, m := range ai.re.FindAllStringIndex(words, -1) {
				ps = append(ps, Problem{wordLines(m[0]), RuleAIAttribution, fmt.Sprintf("%q: no AI attribution", words[m[0]:m[1]])})
			}
		}
	}
	return ps
}

// hostMatches runs the host regexp only when a known ending is there.
func hostMatches(lower, hosts string) [][]int {
	for _, t := range tlds {
		if strings.Contains(lower, t) {
			return hostRe.FindAllStringIndex(hosts, -1)
		}
	}
	return nil
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
