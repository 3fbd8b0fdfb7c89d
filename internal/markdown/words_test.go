package markdown

import "testing"

func TestSentence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"Ends with a stop.", "Ends with a stop."},
		{"Asks?", "Asks?"},
		{"Shouts!", "Shouts!"},
		{"Cut…", "Cut…"},
		{"No stop", "No stop."},
		{"Ends with colon:", "Ends with colon."},
		{"Ends with semicolon;", "Ends with semicolon."},
		{"Ends with a comma ,", "Ends with a comma."},
		{"Ends with code `a:`", "Ends with code `a:`."},
		{`Escaped \:`, `Escaped \:.`},
	} {
		if got := Sentence(tc.in); got != tc.want {
			t.Errorf("Sentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "**plain**"},
		{"x ** y.", `**x \*\* y.**`},
		{"keeps `a*b` as code", "**keeps `a*b` as code**"},
		{`already \* escaped`, `**already \* escaped**`},
		{"an open \\` tick *", "**an open \\` tick \\***"},
		{" padded ", "**padded**"},
	} {
		if got := Bold(tc.in); got != tc.want {
			t.Errorf("Bold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{List(nil), ""},
		{List([]string{"a"}), "a"},
		{List([]string{"a", "b"}), "a and b"},
		{List([]string{"a", "b", "c"}), "a, b and c"},
		{Thousands(-1234567), "-1,234,567"},
		{Thousands(999), "999"},
		{Location("a.sh", 3, 0), "a.sh:3"},
		{Location("a.sh", 3, 5), "a.sh:3-5"},
		{Location("a.sh", 3, 2), "a.sh:3"},
		{Location("a.sh", 0, 5), "a.sh"},
		{Location("", 3, 5), ""},
		{Cell("a | b `c|d`"), "a \\| b `c\\|d`"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
