// Package words is the one set of small word helpers that the checks and
// the report share: a count with its noun (Plural, Count), a short commit
// sha (Short), an inline code span (Code) and the note that says which
// Jinja engine rendered a template (EngineNote). Checks choose their
// words with these helpers; package report owns the markup and the
// layout around them.
package words

import (
	"fmt"

	"github.com/formula-code/template-verify/internal/markdown"
)

// ShortLen is the length of a short commit sha: 12 hex digits, as
// git's own abbreviations grow to in large repositories.
const ShortLen = 12

// Short is the first ShortLen characters of a commit sha; a shorter
// string stays as it is.
func Short(sha string) string {
	if len(sha) > ShortLen {
		return sha[:ShortLen]
	}
	return sha
}

// Plural writes "1 line" or "3 lines", with commas in the number
// ("1,317 files").
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return markdown.Thousands(n) + " " + many
}

// Count is Plural with the plural made by adding "s": Count(2, "set")
// gives "2 sets".
func Count(n int, noun string) string { return Plural(n, noun, noun+"s") }

// Code puts s, cleaned and on one line, in an inline code span whose
// backtick run is longer than any run inside s; empty text gives "". The
// report keeps a check's code spans as typed.
func Code(s string) string { return markdown.Code(s) }

// EngineNote says which engine rendered what: Python Jinja2 (version),
// whose bytes are production's, or gonja. note is the engine's own
// remark, such as a difference between the two, or "".
func EngineNote(what string, jinja2 bool, version, note string) string {
	if jinja2 {
		if note != "" {
			return fmt.Sprintf("Python Jinja2 %s rendered %s, as production does (%s, an engine difference and not a finding against this change).", version, what, note)
		}
		return fmt.Sprintf("Python Jinja2 %s rendered %s, as production does.", version, what)
	}
	if note != "" {
		return fmt.Sprintf("gonja rendered %s: %s. The bytes may differ from production's, which Python Jinja2 renders.", what, note)
	}
	return fmt.Sprintf("gonja rendered %s. The bytes may differ from production's, which Python Jinja2 renders.", what)
}
