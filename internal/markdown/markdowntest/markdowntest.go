// Package markdowntest checks, for tests, that an output shows text a pull
// request controls as data: no raw HTML, no ping, no entity, no control
// character, no forged comment marker, no temporary path. Its markdown
// reader is written apart from the escaper in package markdown on purpose.
package markdowntest

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Marker is the comment marker (report.Marker; repeated here so that the
// report's own tests can use this package).
const Marker = "<!-- template-verify:comment -->"

// hostile is text that a pull request controls: file names, template
// errors, test names and log lines. Every output must show it as data.
var Hostile = []string{
	"::add-mask::x",
	"::stop-commands::y",
	"%0A::error::z",
	"evil <img src=x onerror=alert(1)> @admin",
	"\x1b[31mred\x1b[0m text",
	Marker,
	"\\`<img src=y>`",
	"&#64;admin and &commat;admin",
	"`` a ``` <b>bold</b>",
	"see /tmp/template-verify-123abc/restore/s1/tests/test_a.py line 4",
	"bidi \u202eevil\u202c and \u0085next \u009b31m",
	"fixes #1 and octo/repo#2",
	"[Approve this PR](https://evil.invalid/) ![pixel](https://evil.invalid/p.png)",
}

// allowedTags are the HTML elements the comment writes itself.
var allowedTags = regexp.MustCompile(`^</?(details|summary|br)( open)?>`)

// mention is what GitHub turns into a ping: @ after a non-word character.
var mention = regexp.MustCompile(`(^|[^A-Za-z0-9_])@[A-Za-z0-9]`)

// link is a link or an image that PR text would choose: the comment's own
// links go to GitHub pages whose text is a check name or a file line.
var link = regexp.MustCompile(`\[[^\]]*\]\(https://evil`)

// reference is what GitHub links to an issue and marks in its timeline.
var reference = regexp.MustCompile(`#[0-9]`)

// OutsideCode returns the text of md that markdown reads as markup: it
// leaves out fenced code blocks and inline code spans, and it honours
// backslash escapes as CommonMark does. It is written apart from the
// escaper on purpose.
func OutsideCode(md string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			continue
		}
		var b strings.Builder
		for i := 0; i < len(line); {
			switch c := line[i]; {
			case c == '\\' && i+1 < len(line) && unicode.IsPunct(rune(line[i+1])) || c == '\\' && i+1 < len(line) && strings.ContainsRune("`<>@&", rune(line[i+1])):
				// An escaped "[" or "<" is text, not markup: a
				// placeholder keeps the checks below from reading it.
				if e := line[i+1]; e == '[' || e == '<' {
					b.WriteString("·")
				} else {
					b.WriteByte(e)
				}
				i += 2
			case c == '`':
				n := 0
				for i+n < len(line) && line[i+n] == '`' {
					n++
				}
				end := -1
				for j := i + n; j < len(line); {
					if line[j] != '`' {
						j++
						continue
					}
					m := 0
					for j+m < len(line) && line[j+m] == '`' {
						m++
					}
					if m == n {
						end = j
						break
					}
					j += m
				}
				if end < 0 {
					b.WriteString(line[i : i+n])
					i += n
					continue
				}
				b.WriteString(" ")
				i = end + n
			default:
				b.WriteByte(c)
				i++
			}
		}
		out = append(out, b.String())
	}
	return out
}

// Unsafe lists every way md lets hostile text act as markup.
func Unsafe(md string, comment bool) []string {
	var bad []string
	if comment && (!strings.HasPrefix(md, Marker+"\n") || strings.Count(md, Marker) != 1) {
		bad = append(bad, "the marker is not only on the first line: "+fmt.Sprint(strings.Count(md, Marker))+" copies")
	}
	for i, l := range OutsideCode(md) {
		if comment && i == 0 {
			continue
		}
		for j := strings.IndexByte(l, '<'); j >= 0; j = strings.IndexByte(l, '<') {
			if !allowedTags.MatchString(l[j:]) && len(l) > j+1 && (unicode.IsLetter(rune(l[j+1])) || strings.ContainsRune("!/?", rune(l[j+1]))) {
				bad = append(bad, "raw HTML: "+l[j:min(len(l), j+30)])
			}
			l = l[j+1:]
		}
	}
	for _, l := range OutsideCode(md) {
		if mention.MatchString(l) {
			bad = append(bad, "a mention pings: "+mention.FindString(l))
		}
		if link.MatchString(l) {
			bad = append(bad, "a link or image: "+link.FindString(l))
		}
		if reference.MatchString(l) {
			bad = append(bad, "an issue reference: "+reference.FindString(l))
		}
		if regexp.MustCompile(`&(#|[A-Za-z]+;)`).MatchString(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "", "&quot;", "").Replace(l)) {
			bad = append(bad, "an entity decodes to markup: "+l)
		}
	}
	return append(bad, UnsafeAnywhere(md)...)
}

// UnsafeAnywhere lists control characters and unmasked temporary paths.
func UnsafeAnywhere(s string) []string {
	var bad []string
	for _, r := range s {
		if (unicode.IsControl(r) && r != '\n') || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') {
			bad = append(bad, fmt.Sprintf("control character %U", r))
			break
		}
	}
	if strings.Contains(s, "/tmp/template-verify-") {
		bad = append(bad, "a temporary path is not masked")
	}
	return bad
}
