package markdown

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutChars(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		runes int
		cut   bool
	}{
		{"255 ASCII", strings.Repeat("a", 255), 255, false},
		{"256 ASCII", strings.Repeat("a", 256), 255, true},
		{"255 two-byte", strings.Repeat("é", 255), 255, false},
		{"256 two-byte", strings.Repeat("é", 256), 255, true},
		{"256 four-byte", strings.Repeat("😀", 256), 255, true},
		{"short", "ok", 2, false},
		{"invalid UTF-8 counts as U+FFFD", "a\xffb", 3, false},
	}
	for _, tc := range tests {
		got := CutChars(tc.in, 255)
		if n := utf8.RuneCountInString(got); n != tc.runes || !utf8.ValidString(got) {
			t.Errorf("%s: %d runes (valid %v), want %d", tc.name, n, utf8.ValidString(got), tc.runes)
		}
		if strings.HasSuffix(got, Ellipsis) != tc.cut {
			t.Errorf("%s: ellipsis %v, want %v", tc.name, strings.HasSuffix(got, Ellipsis), tc.cut)
		}
	}
}

func TestCutBytesOnRuneBoundary(t *testing.T) {
	t.Parallel()
	const limit = 65535
	for _, r := range []string{"a", "é", "€", "😀"} {
		for _, n := range []int{limit - 1, limit, limit + 1, limit + 2} {
			in := strings.Repeat(r, n/len(r)) + strings.Repeat("a", n%len(r))
			got := CutBytes(in, limit, " [cut]")
			if len(got) > limit || !utf8.ValidString(got) {
				t.Errorf("%q x %d bytes: got %d bytes, valid %v", r, n, len(got), utf8.ValidString(got))
			}
			if (len(in) <= limit) != (got == in) {
				t.Errorf("%q x %d bytes: cut %v", r, n, got != in)
			}
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	const limit = 65535
	tests := []struct {
		name string
		in   string
		m    Measure
		cut  bool
	}{
		{"exactly 65,535 bytes", strings.Repeat("a", 65534) + "\n", Bytes, false},
		{"65,536 bytes", strings.Repeat("a", 65535) + "\n", Bytes, true},
		{"lines of 3-byte runes at the limit", strings.Repeat(strings.Repeat("€", 20)+"\n", 1073) + strings.Repeat("€", 20) + strings.Repeat("a", 22), Bytes, false},
		{"lines of 3-byte runes over", strings.Repeat(strings.Repeat("€", 20)+"\n", 2000), Bytes, true},
		{"one long line of 4-byte runes", strings.Repeat("😀", 20000), Bytes, true},
		{"a fence over the limit", "Intro.\n\n```text\n" + strings.Repeat("ü line\n", 20000) + "```\n\nAfter.\n", Bytes, true},
		{"a table over the limit", "Rows:\n\n| a | b |\n| --- | --- |\n" + strings.Repeat("| ä | b |\n", 8000), Bytes, true},
		{"details over the limit", "<details><summary>x</summary>\n\n````diff\n" + strings.Repeat("+ ```\n", 20000) + "````\n\n</details>\n", Bytes, true},
		{"3-byte runes within 65,535 characters", strings.Repeat("€", 65534) + "\n", Chars, false},
		{"3-byte runes over 65,535 characters", strings.Repeat("€\n", 40000), Chars, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !tc.cut && tc.m.Size(tc.in) != limit {
				t.Fatalf("test input is %d %s", tc.m.Size(tc.in), tc.m.unit)
			}
			got, cut := Cut(tc.in, limit, tc.m)
			if cut != tc.cut {
				t.Fatalf("cut %v, want %v", cut, tc.cut)
			}
			if tc.m.Size(got) > limit || !utf8.ValidString(got) {
				t.Fatalf("%d %s, valid %v", tc.m.Size(got), tc.m.unit, utf8.ValidString(got))
			}
			if !cut {
				if got != tc.in {
					t.Error("changed without a cut")
				}
				return
			}
			if !strings.Contains(got, "limit of 65,535 "+tc.m.unit+". The cut leaves out the last") {
				t.Errorf("no note: %q", got[max(0, len(got)-200):])
			}
			if tc.m.Size(got) < limit-1000 {
				t.Errorf("kept only %d %s", tc.m.Size(got), tc.m.unit)
			}
			if bad := Broken(got); bad != "" {
				t.Error(bad)
			}
		})
	}
}

func TestCutPrefixTableHeader(t *testing.T) {
	t.Parallel()
	md := "Intro line.\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"
	// A budget that reaches just past the header must not keep it alone.
	kept, pos := CutPrefix(md, len("Intro line.\n| a | b |\n")+2, Bytes)
	if kept != "Intro line.\n" || pos != len("Intro line.\n") {
		t.Errorf("kept %q", kept)
	}
	kept, _ = CutPrefix(md, len("Intro line.\n| a | b |\n| --- | --- |\n")+2, Bytes)
	if !strings.HasSuffix(kept, "| --- | --- |\n") {
		t.Errorf("kept %q", kept)
	}
}

func TestBroken(t *testing.T) {
	t.Parallel()
	for md, want := range map[string]bool{
		"text\n\n```\ncode\n```\n":        false,
		"text\n\n```\ncode\n":             true,
		"<details><summary>x</summary>\n": true,
		"| a |\n| --- |\n| 1 |\n":         false,
		"| a |\ntext\n":                   true,
	} {
		if got := Broken(md) != ""; got != want {
			t.Errorf("Broken(%q) = %q, want broken %v", md, Broken(md), want)
		}
	}
}
