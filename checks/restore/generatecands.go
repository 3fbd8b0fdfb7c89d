// Candidate paths that one pattern matches, generated from its parsed regular expression.

package restore

import (
	"regexp/syntax"
	"strings"
)

// pathCandidates are strings built from the pattern's syntax tree, made
// into file paths with folders around them. Not all of them match: the
// caller checks each with the compiled pattern.
func pathCandidates(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range gen(re.Simplify()) {
		begin := strings.IndexRune(s, beginMark)
		end := strings.IndexRune(s, endMark)
		if begin > 0 && strings.Trim(s[:begin], string(beginMark)) != "" {
			continue // an anchor in the middle
		}
		if end >= 0 && strings.Trim(s[end:], string(endMark)) != "" {
			continue
		}
		core := strings.NewReplacer(string(beginMark), "", string(endMark), "").Replace(s)
		prefixes := []string{"", "pkg/", "nested dir é/"}
		if begin >= 0 {
			prefixes = []string{""}
		}
		suffixes := []string{"", "f.py", "sp ace é [1].py", "it's.txt"}
		if end >= 0 {
			suffixes = []string{""}
		}
		for _, pre := range prefixes {
			for _, suf := range suffixes {
				c := pre + core
				if strings.HasPrefix(core, "/") {
					c = strings.TrimSuffix(pre, "/") + core
					if pre == "" {
						c = "nested" + core
					}
				}
				if suf != "" && !strings.HasSuffix(c, "/") {
					// The pattern makes a name, and more may follow it.
					out = append(out, c+nameSuffix[suf])
					continue
				}
				out = append(out, c+suf)
			}
		}
	}
	return out
}

// nameSuffix continues a file name that a pattern does not end.
var nameSuffix = map[string]string{"f.py": "_x.txt", "sp ace é [1].py": " é [1].md", "it's.txt": "'s.txt"}

// gen lists strings that the node may match, at most maxCandidates.
func gen(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		return classChars(re.Rune)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return []string{"x", " ", "é"}
	case syntax.OpBeginLine, syntax.OpBeginText:
		return []string{string(beginMark)}
	case syntax.OpEndLine, syntax.OpEndText:
		return []string{string(endMark)}
	case syntax.OpCapture:
		return gen(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return capped(append([]string{""}, gen(re.Sub[0])...))
	case syntax.OpPlus:
		return gen(re.Sub[0])
	case syntax.OpRepeat:
		sub := gen(re.Sub[0])
		var out []string
		for _, s := range sub {
			out = append(out, strings.Repeat(s, max(re.Min, 1)))
		}
		if re.Min == 0 {
			out = append([]string{""}, out...)
		}
		return capped(out)
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			var next []string
			for _, a := range out {
				for _, b := range gen(sub) {
					next = append(next, a+b)
				}
			}
			out = capped(next)
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, gen(sub)...)
		}
		return capped(out)
	}
	return nil
}

// classChars picks from a character class a plain character and the
// unusual ones it allows, never a slash or a control character unless
// the class has nothing else.
func classChars(ranges []rune) []string {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var out []string
	for _, r := range []rune{'x', 'a', 'z', '0', '_', '-', '.', ' ', 'é', '\'', '['} {
		if in(r) {
			out = append(out, string(r))
		}
	}
	if len(out) == 0 && len(ranges) >= 2 {
		out = append(out, string(ranges[0]))
	}
	return out
}

// capped keeps the first maxCandidates distinct strings, always with the
// last one (often the most unusual).
func capped(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) > maxCandidates {
		out = append(out[:maxCandidates-1], out[len(out)-1])
	}
	return out
}
