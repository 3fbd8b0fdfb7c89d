package housestyle

import (
	"fmt"
	"strings"
)

// checkMermaid checks each mermaid block: it starts with flowchart or graph,
// its quotes pair up on each line, and its brackets balance.
func checkMermaid(lines []line) []Problem {
	var ps []Problem
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.kind != kindFence || l.fenceAt != l.n || !strings.EqualFold(firstWord(l.lang), "mermaid") {
			continue
		}
		var body []line
		j := i + 1
		for ; j < len(lines) && lines[j].kind == kindCode; j++ {
			body = append(body, lines[j])
		}
		i = j
		ps = append(ps, checkDiagram(l.n, body)...)
	}
	return ps
}

func checkDiagram(at int, body []line) []Problem {
	var ps []Problem
	started := false
	var stack []rune
	var opened []int
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, l := range body {
		t := strings.TrimSpace(l.raw)
		if t == "" || strings.HasPrefix(t, "%%") {
			continue
		}
		if !started {
			started = true
			if w := firstWord(t); w != "flowchart" && w != "graph" {
				ps = append(ps, Problem{l.n, RuleMermaid, fmt.Sprintf("a diagram starts with flowchart or graph, not %q", w)})
				return ps
			}
			continue
		}
		if strings.Count(t, `"`)%2 != 0 {
			ps = append(ps, Problem{l.n, RuleMermaid, "a quote does not close on this line"})
			continue
		}
		quoted := false
		for _, r := range t {
			switch {
			case r == '"':
				quoted = !quoted
			case quoted:
			case r == '(' || r == '[' || r == '{':
				stack = append(stack, r)
				opened = append(opened, l.n)
			case r == ')' || r == ']' || r == '}':
				if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
					ps = append(ps, Problem{l.n, RuleMermaid, fmt.Sprintf("%q does not close an open bracket", r)})
					stack, opened = nil, nil
					continue
				}
				stack, opened = stack[:len(stack)-1], opened[:len(opened)-1]
			}
		}
	}
	if !started {
		ps = append(ps, Problem{at, RuleMermaid, "the diagram is empty"})
	}
	if len(stack) > 0 {
		ps = append(ps, Problem{opened[0], RuleMermaid, fmt.Sprintf("%q does not close", stack[0])})
	}
	return ps
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
