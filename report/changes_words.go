package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// maxQuote is the longest rendered line, in characters, that Effect or
// Before quotes.
const maxQuote = 80

// changeText is what the report says about one change, in markdown: what
// changed (the bold line), its effect on the rendered output, and what the
// base had before.
type changeText struct {
	Headline, Effect, Before string
}

// wordChange words a change from its data: the variable sets whose output
// changes, whose render fails at head, and the first line it adds and
// removes. Line counts are per variable set, never a sum over sets.
func wordChange(c checks.Change) changeText {
	sets := plural(c.Sets, "variable set", "variable sets")
	fails := ""
	if c.HeadFails > 0 {
		fails = fmt.Sprintf("does not render at head in %d of %s", c.HeadFails, sets)
	}
	switch c.Status {
	case "added":
		if fails != "" {
			return changeText{"new template, " + fails, "See the render findings.", "The template did not exist."}
		}
		return changeText{"new template", fmt.Sprintf("The template renders for %s.", sets), "The template did not exist."}
	case "deleted":
		return changeText{"template deleted", "Tasks no longer get this file.", fmt.Sprintf("The template rendered for %s.", sets)}
	}
	what := "changed"
	switch c.Status {
	case "renamed":
		what = "renamed from " + prose(c.OldPath)
	case "included":
		via := make([]string, len(c.Via))
		for i, v := range c.Via {
			via[i] = prose(v)
		}
		what = "an included file changed (" + strings.Join(via, ", ") + ")"
	}
	changed := len(c.AddedPerSet)
	switch {
	case changed == 0 && fails != "":
		return changeText{what + ", " + fails, "The head's render fails, so its output cannot be compared; see the render findings.", "The base's output."}
	case changed == 0 && c.SameSets == c.Sets:
		return changeText{what + ", rendered output unchanged", fmt.Sprintf("The rendered output is the same for all %s.", sets), "The same output."}
	case changed == 0:
		return changeText{what + ", output not compared", "The base does not render, so the outputs cannot be compared; see the render findings.", "The base fails."}
	}
	t := changeText{Headline: fmt.Sprintf("%s, output changes in %d of %s", what, changed, sets)}
	if fails != "" {
		t.Headline += "; " + fails
	}
	t.Effect = fmt.Sprintf("The rendered output gets %s and loses %s.", perSet(c.AddedPerSet, "new line"), perSet(c.RemovedPerSet, "line"))
	if c.FirstAdded != "" {
		t.Effect += " First new line: " + quote(window(c.FirstAdded, c.FirstRemoved)) + "."
	}
	t.Before = "The base has no lines in place of the new ones."
	if c.FirstRemoved != "" {
		t.Before = "First removed line: " + quote(window(c.FirstRemoved, c.FirstAdded)) + "."
	}
	return t
}

// perSet says how many lines each changed variable set gets: "2 new lines"
// for one set, "1 new line in each of 3 variable sets", or "1 to 4 new
// lines per variable set".
func perSet(counts []int, noun string) string {
	if len(counts) == 0 {
		return plural(0, noun, noun+"s")
	}
	lo, hi := slices.Min(counts), slices.Max(counts)
	switch {
	case len(counts) == 1:
		return plural(lo, noun, noun+"s")
	case lo == hi:
		return fmt.Sprintf("%s in each of %d variable sets", plural(lo, noun, noun+"s"), len(counts))
	}
	return fmt.Sprintf("%s to %s per variable set", thousands(lo), plural(hi, noun, noun+"s"))
}

// windowLead is how many characters of the text both lines share a quote
// keeps before the first character where they differ.
const windowLead = 24

// window is the part of line that a quote of at most maxQuote characters
// shows: the line from its start when it fits, or when it differs from
// other within its first maxQuote-windowLead characters; else "…", then
// the line from windowLead characters (moved on to the next word) before
// the first difference. Two long lines that differ late then show where
// they differ, not the same first 80 characters.
func window(line, other string) string {
	rs := []rune(line)
	if len(rs) <= maxQuote || other == "" {
		return line
	}
	os := []rune(other)
	p := 0
	for p < len(rs) && p < len(os) && rs[p] == os[p] {
		p++
	}
	if p <= maxQuote-windowLead {
		return line
	}
	start := p - windowLead
	if i := slices.Index(rs[start:p], ' '); i >= 0 {
		start += i + 1
	}
	return markdown.Ellipsis + string(rs[start:])
}

// quote is a rendered line as inline code, at most maxQuote characters.
func quote(line string) string {
	return code(markdown.CutChars(line, maxQuote))
}
