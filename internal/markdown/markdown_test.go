package markdown

import "testing"

func TestCode(t *testing.T) {
	cases := map[string]string{
		"":           "",
		"x":          "`x`",
		"a`b":        "``a`b``",
		"`x`":        "`` `x` ``",
		"two\nlines": "`two lines`",
		"a ``` b":    "````a ``` b````",
		"  padded  ": "`padded`",
	}
	for in, want := range cases {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFence(t *testing.T) {
	for body, want := range map[string]string{"plain": "```", "has ``` inside": "````", "has ````` five": "``````"} {
		if got := Fence(body); got != want {
			t.Errorf("Fence(%q) = %q, want %q", body, got, want)
		}
	}
}
