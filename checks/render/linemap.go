package render

import (
	"regexp"
	"strings"
)

var (
	exprRe = regexp.MustCompile(`\{\{.*?\}\}`)
	tagRe  = regexp.MustCompile(`\{%.*?%\}|\{#.*?#\}`)
)

// templateLine maps a line of the rendered output (1-based) back to the
// template source line that produced it, or 0 when no single line can be
// named. A template line matches when its text, with {{ expressions }} as
// wildcards and {% tags %} removed, equals the rendered line (both trimmed).
// Among several matches the nearest one at or after the rendered line wins,
// because tag-only lines vanish when rendered, so a template line is rarely
// before its output line; without such a match the nearest earlier one wins.
func templateLine(src, rendered string, line int) int {
	out := strings.Split(rendered, "\n")
	if line <= 0 || line > len(out) {
		return 0
	}
	want := strings.TrimSpace(out[line-1])
	if want == "" {
		return 0
	}
	best, bestDist := 0, -1
	for i, t := range strings.Split(src, "\n") {
		if !lineMatches(t, want) {
			continue
		}
		d := i + 1 - line
		if d < 0 {
			d = 1<<20 - d // only when no later line matches
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = i+1, d
		}
	}
	return best
}

func lineMatches(tmplLine, rendered string) bool {
	t := strings.TrimSpace(tagRe.ReplaceAllString(tmplLine, ""))
	if t == "" {
		return false
	}
	if !strings.Contains(t, "{{") {
		return t == rendered
	}
	parts := exprRe.Split(t, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	return err == nil && re.MatchString(rendered)
}

// TemplateLine maps a line of the rendered output (1-based) back to the
// template source line that produced it, or 0 when no single line can be
// named (see templateLine). Other checks use it for their findings.
func TemplateLine(src, rendered string, line int) int { return templateLine(src, rendered, line) }
