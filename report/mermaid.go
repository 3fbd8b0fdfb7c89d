package report

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/formula-code/template-verify/checks"
)

// diagram draws the run as a Mermaid flowchart: the change feeds every
// check, and every check feeds the verdict. A check that did not run or
// was skipped has a dotted arrow. Labels are quoted and hold only characters that Mermaid
// accepts in a quoted label. It returns "" when no check is there.
func diagram(r *Report) string {
	if len(r.Results) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	change := "change"
	if n := len(r.Templates); n > 0 {
		change = plural(n, "changed template", "changed templates")
	}
	fmt.Fprintf(&b, "  change[%s]\n", label(change))
	fmt.Fprintf(&b, "  verdict{%s}\n", label("result: "+Word(r.Overall)))
	for i, res := range r.Results {
		arrow := "-->"
		if res.Conclusion == checks.NotRun || res.Conclusion == checks.Skipped {
			arrow = "-.->"
		}
		id := fmt.Sprintf("c%d", i+1)
		fmt.Fprintf(&b, "  change %s %s[%s]\n", arrow, id, label(res.Check+": "+Word(res.Conclusion)))
		fmt.Fprintf(&b, "  %s %s verdict\n", id, arrow)
	}
	return b.String()
}

// label quotes s for a Mermaid node. Letters, digits, spaces and a few
// marks stay; any other character becomes a space.
func label(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), strings.ContainsRune(" :,._/+-()", r):
			b.WriteRune(r)
		default:
			b.WriteRune(' ')
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if out == "" {
		out = "check"
	}
	return `"` + clip(out, 80) + `"`
}
