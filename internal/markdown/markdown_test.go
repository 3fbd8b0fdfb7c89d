package markdown

import "testing"

func TestCode(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	for body, want := range map[string]string{"plain": "```", "has ``` inside": "````", "has ````` five": "``````"} {
		if got := Fence(body); got != want {
			t.Errorf("Fence(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestInline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"evil <img src=x onerror=alert(1)> @admin", "evil &lt;img src=x onerror=alert(1)> @\u200badmin"},
		{"<!-- template-verify:comment -->", "&lt;!-- template-verify:comment -->"},
		{"`<kept>` <b>", "`<kept>` &lt;b>"},
		{"`@admin` in code", "`@admin` in code"},
		{"\\`<img src=y>`", "\\`&lt;img src=y>\\`"},
		{"open ` <x> and ``", "open \\` &lt;x> and \\`\\`"},
		{"ends with \\", "ends with \\\\"},
		{"\\\\`<in span>`", "\\\\`<in span>`"},
		{"&#64;admin &commat;x &#x40;y", "&amp;#\u200b64;admin &amp;commat;x &amp;#x40;y"},
		{"a && b &amp; c &lt;", "a && b &amp; c &lt;"},
		{"mail a@b.org, @ alone, @-x", "mail a@\u200bb.org, @ alone, @-x"},
		{"\x1b[31mred\x1b[0m \u202eevil\u202c \u0085x \x00y", "\\[31mred\\[0m evil x y"},
		{"line\r\n::error::z", "line ::error::z"},
		{"at /tmp/template-verify-1a2b/restore/s1/t.py:4", "at …/restore/s1/t.py:4"},
		{"x /tmp/template-verify-1/pytest-181715830/home-2623112461/pytest-of-root/t.sh", "x …/pytest-of-root/t.sh"},
		{"/var/tmp/x/template-verify-demo-9 done", "… done"},
		{"template-verify run", "template-verify run"},
		{"[Approve](https://x.invalid) ![i](https://x.invalid/t.png) `[in](code)`", "\\[Approve](https://x.invalid) !\\[i](https://x.invalid/t.png) `[in](code)`"},
		{"fixes #12 and octo/repo#3, not #x or `#4`", "fixes #\u200b12 and octo/repo#\u200b3, not #x or `#4`"},
	} {
		got := Inline(tc.in)
		if got != tc.want {
			t.Errorf("Inline(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := Inline(got); again != got {
			t.Errorf("Inline is not idempotent on %q: %q", got, again)
		}
	}
}

func TestCodeAndBlockClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, code, block string }{
		{"a\x1b[1mb", "`a[1mb`", "a[1mb"},
		{"x\ny", "`x y`", "x\ny"},
		{"tab\there", "`tab here`", "tab\there"},
		{"/tmp/template-verify-x/f ``` <b>", "````…/f ``` <b>````", "…/f ``` <b>"},
		{"cr\r\nlf", "`cr lf`", "cr\nlf"},
	} {
		if got := Code(tc.in); got != tc.code {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.code)
		}
		if got := Block(tc.in); got != tc.block {
			t.Errorf("Block(%q) = %q, want %q", tc.in, got, tc.block)
		}
	}
}

func TestUnescape(t *testing.T) {
	t.Parallel()
	in := "a <b> & @admin &#64;"
	if got := Unescape(Inline(in)); got != in {
		t.Errorf("Unescape(Inline(%q)) = %q", in, got)
	}
}

func TestEscapeStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"# h", `\# h`},
		{"``` fence", "\\``` fence"},
		{"``` span <x> ```", "``` span <x> ```"},
		{"`code` text", "`code` text"},
		{"12. item", `12\. item`},
		{"plain", "plain"},
	} {
		if got := EscapeStart(tc.in); got != tc.want {
			t.Errorf("EscapeStart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
