package publish

import "testing"

// Check-run text is escaped by the report's rule: "<" outside code spans
// only, so that a code span shows what was typed.
func TestProse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"<details> opens\nnothing", "&lt;details> opens nothing"},
		{"run `git diff <sha>` again", "run `git diff <sha>` again"},
		{"a & b > c", "a & b > c"},
		{"unclosed `tick <b>", "unclosed \\`tick &lt;b>"},
		{"@admin &#64;x", "@\u200badmin &amp;#\u200b64;x"},
	}
	for _, tt := range tests {
		if got := prose(tt.in); got != tt.want {
			t.Errorf("prose(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
