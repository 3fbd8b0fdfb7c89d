package restore

import (
	"fmt"
	"regexp"
	"strings"
)

// Section is a part of a script cut out by line patterns.
type Section struct {
	Text string // the lines of the section, each ending in a newline
	Line int    // 1-based line of the start line in the script
}

// errNoStart says that no line matches the start pattern.
type errNoStart struct{ pattern string }

func (e *errNoStart) Error() string {
	return fmt.Sprintf("the script has no line that matches %s", e.pattern)
}

// CutSection returns the lines from the first line that matches start to
// the line before the next line (after the start line) that matches end,
// or to the end of the script when no later line matches end.
func CutSection(script, start, end string) (Section, error) {
	startRe, err := regexp.Compile(start)
	if err != nil {
		return Section{}, fmt.Errorf("section start %q: %w", start, err)
	}
	endRe, err := regexp.Compile(end)
	if err != nil {
		return Section{}, fmt.Errorf("section end %q: %w", end, err)
	}
	lines := strings.SplitAfter(script, "\n")
	first := -1
	for i, l := range lines {
		if startRe.MatchString(strings.TrimSuffix(l, "\n")) {
			first = i
			break
		}
	}
	if first < 0 {
		return Section{}, &errNoStart{pattern: start}
	}
	last := len(lines)
	for i := first + 1; i < len(lines); i++ {
		if endRe.MatchString(strings.TrimSuffix(lines[i], "\n")) {
			last = i
			break
		}
	}
	text := strings.Join(lines[first:last], "")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return Section{Text: text, Line: first + 1}, nil
}

// lineMatching returns the 1-based number of the first line of text that
// matches the pattern, or 0.
func lineMatching(text, pattern string) int {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return 0
	}
	for i, l := range strings.Split(text, "\n") {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}
