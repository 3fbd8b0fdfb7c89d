package housestyle

import (
	"fmt"
	"strings"
	"unicode"
)

// checkSentences counts the words of every sentence in prose units.
func checkSentences(us []unit) []Problem {
	var ps []Problem
	for _, u := range us {
		if u.kind != unitProse {
			continue
		}
		limit, what := MaxWords, "sentence"
		if u.step {
			limit, what = MaxStepWords, "step"
		}
		count, start := 0, 0
		var first []string
		end := func() {
			if count > limit {
				ps = append(ps, Problem{start, RuleSentenceLength, fmt.Sprintf("%s of %d words (limit %d): %q", what, count, limit, strings.Join(first, " ")+" ...")})
			}
			count, first = 0, nil
		}
		for _, p := range u.parts {
			for _, tok := range strings.Fields(p.words) {
				if !isWord(tok) {
					continue
				}
				if count == 0 {
					start = p.line
				}
				count++
				if len(first) < 6 {
					first = append(first, tok)
				}
				if endsSentence(tok) {
					end()
				}
			}
		}
		end()
	}
	return ps
}

// isWord reports whether a token has a letter or a digit.
func isWord(tok string) bool {
	for _, r := range tok {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// endsSentence reports whether a token ends with ".", "!" or "?", after
// closing quotes, brackets and emphasis marks.
func endsSentence(tok string) bool {
	t := strings.TrimRight(tok, `"')]}*_”’»`)
	return strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?")
}
