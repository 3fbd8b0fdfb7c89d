package markdowntest

import (
	"strings"
	"testing"
)

// TestOutsideCode checks the test's own markdown reader.
func TestOutsideCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a `<b>` c", "a   c"},
		{"a \\`<b>` c", "a `<b>` c"},
		{"\\[x](y) \\<b>", "·x](y) ·b>"},
		{"``a`b`` <x>", "  <x>"},
		{"```\n<x>\n```\ny", "y"},
		{"`open <x>", "`open <x>"},
	} {
		if got := strings.Join(OutsideCode(tc.in), "|"); got != tc.want {
			t.Errorf("OutsideCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
