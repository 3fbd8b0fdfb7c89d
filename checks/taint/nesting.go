package taint

import "strings"

// MaxNesting is the deepest nesting Analyze parses.
const MaxNesting = 1000

// nestingDepth estimates how deep a script nests: each opening bracket,
// brace or parenthesis and each compound-command keyword (if, while,
// until, for, case, select) opens a level, and the closing ones close it.
// Quotes are not understood, so the estimate is never below the real
// depth of brackets. It stops counting past limit.
func nestingDepth(script string, limit int) int {
	depth, maxDepth := 0, 0
	word := strings.Builder{}
	endWord := func() {
		switch word.String() {
		case "if", "while", "until", "for", "case", "select":
			depth++
		case "fi", "done", "esac":
			if depth > 0 {
				depth--
			}
		}
		word.Reset()
	}
	for i := 0; i < len(script) && maxDepth <= limit; i++ {
		c := script[i]
		switch {
		case c == '(' || c == '{' || c == '[':
			endWord()
			depth++
		case c == ')' || c == '}' || c == ']':
			endWord()
			if depth > 0 {
				depth--
			}
		case c >= 'a' && c <= 'z':
			if word.Len() < 8 {
				word.WriteByte(c)
			} else {
				word.WriteByte('_')
			}
		default:
			endWord()
		}
		maxDepth = max(maxDepth, depth)
	}
	endWord()
	return max(maxDepth, depth)
}
