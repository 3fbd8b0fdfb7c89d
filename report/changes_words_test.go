package report

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestWordChange: the report words a change from its data, counting
// lines per variable set, never summed over sets.
func TestWordChange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    checks.Change
		want changeText
	}{
		{"added", checks.Change{Status: "added", Sets: 2},
			changeText{"new template", "The template renders for 2 variable sets.", "The template did not exist."}},
		{"added, head fails", checks.Change{Status: "added", Sets: 2, HeadFails: 1},
			changeText{"new template, does not render at head in 1 of 2 variable sets", "See the render findings.", "The template did not exist."}},
		{"deleted", checks.Change{Status: "deleted", Sets: 1},
			changeText{"template deleted", "Tasks no longer get this file.", "The template rendered for 1 variable set."}},
		{"unchanged output", checks.Change{Status: "included", Via: []string{"a.inc", "b <i>.inc"}, Sets: 3, SameSets: 3},
			changeText{"an included file changed (a.inc, b &lt;i>.inc), rendered output unchanged", "The rendered output is the same for all 3 variable sets.", "The same output."}},
		{"head fails, nothing compared", checks.Change{Status: "modified", Sets: 2, HeadFails: 2},
			changeText{"changed, does not render at head in 2 of 2 variable sets", "The head's render fails, so its output cannot be compared; see the render findings.", "The base's output."}},
		{"base fails", checks.Change{Status: "modified", Sets: 2, SameSets: 1},
			changeText{"changed, output not compared", "The base does not render, so the outputs cannot be compared; see the render findings.", "The base fails."}},
		{"one set", checks.Change{Status: "renamed", OldPath: "old.sh", Sets: 1, AddedPerSet: []int{2}, RemovedPerSet: []int{1}, FirstAdded: "a `b`", FirstRemoved: "c"},
			changeText{"renamed from old.sh, output changes in 1 of 1 variable set", "The rendered output gets 2 new lines and loses 1 line. First new line: `` a `b` ``.", "First removed line: `c`."}},
		{"same count in each set, one fails", checks.Change{Status: "modified", Sets: 3, HeadFails: 1, AddedPerSet: []int{1, 1}, RemovedPerSet: []int{0, 0}},
			changeText{"changed, output changes in 2 of 3 variable sets; does not render at head in 1 of 3 variable sets", "The rendered output gets 1 new line in each of 2 variable sets and loses 0 lines in each of 2 variable sets.", "The base has no lines in place of the new ones."}},
		{"a range", checks.Change{Status: "modified", Sets: 2, AddedPerSet: []int{1, 1200}, RemovedPerSet: []int{0, 1}},
			changeText{"changed, output changes in 2 of 2 variable sets", "The rendered output gets 1 to 1,200 new lines per variable set and loses 0 to 1 line per variable set.", "The base has no lines in place of the new ones."}},
		{"long lines that differ late show where they differ",
			checks.Change{Status: "modified", Sets: 1, AddedPerSet: []int{1}, RemovedPerSet: []int{1},
				FirstAdded:   "RULE: The grader restores benchmarks, asv.conf files, .snapshots, conftest.py files, .github/ and test files (tests/ folders) to the starting tree.",
				FirstRemoved: "RULE: The grader restores benchmarks, asv.conf files, .snapshots, conftest.py files and .github/ to the starting tree before timing and tests."},
			changeText{"changed, output changes in 1 of 1 variable set",
				"The rendered output gets 1 new line and loses 1 line. First new line: `…conftest.py files, .github/ and test files (tests/ folders) to the starting tr…`.",
				"First removed line: `…conftest.py files and .github/ to the starting tree before timing and tests.`."}},
		{"long lines that differ early show their start",
			checks.Change{Status: "modified", Sets: 1, AddedPerSet: []int{1}, RemovedPerSet: []int{1},
				FirstAdded:   "x := " + strings.Repeat("a", 90),
				FirstRemoved: "y := " + strings.Repeat("a", 90)},
			changeText{"changed, output changes in 1 of 1 variable set",
				"The rendered output gets 1 new line and loses 1 line. First new line: `x := " + strings.Repeat("a", 74) + "…`.",
				"First removed line: `y := " + strings.Repeat("a", 74) + "…`."}},
	} {
		if got := wordChange(tc.c); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
