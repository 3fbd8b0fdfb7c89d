package suggest

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"bad", "head", "format", "keep", "templates", "main", "master"}
	for _, c := range []struct{ got, want string }{
		{"bda", "bad"},      // two letters swapped: one edit
		{"formt", "format"}, // one deleted
		{"templats", "templates"},
		{"FORMAT", "format"}, // the name in other case
		{"mian", "main"},
		{"xyz", ""},  // nothing near
		{"ab", ""},   // too short for two edits
		{"head", ""}, // the name itself
	} {
		if got := Nearest(c.got, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.got, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{{"bda", "bad", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"same", "same", 0}, {"ünï", "uni", 2}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
