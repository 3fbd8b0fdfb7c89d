package report

import (
	"strings"
)

// verifyingMarker opens and closes the line that says a newer push is
// being verified, so that the next body can take it out again.
const verifyingMarker = "<!-- template-verify:verifying -->"

// Verifying is the comment while the push at head is being verified: the
// hidden Marker, a line "⏳ Verifying `<sha>`…" that says the result below
// is the previous one, and the previous body (without its marker or an
// older verifying line). A previous body that is not a comment of
// template-verify gives only the line.
func Verifying(previous, head string) string {
	line := "⏳ **Verifying " + code(short(prose(head))) + "…** The result below is of the previous push; this comment changes when the new run ends."
	out := Marker + "\n" + verifyingMarker + "\n" + line + "\n" + verifyingMarker + "\n"
	if !IsComment(previous) {
		return CommentBody(out)
	}
	rest := WithoutVerifying(previous)
	rest = strings.TrimLeft(rest, " \t\r\n")
	rest = strings.TrimPrefix(rest, Marker)
	return CommentBody(out + "\n" + strings.TrimLeft(rest, "\r\n"))
}

// WithoutVerifying takes the verifying line out of a comment body, if it
// has one: only right under the Marker, where Verifying puts it, so that
// no text further down can make a part of the comment go.
func WithoutVerifying(body string) string {
	head := Marker + "\n" + verifyingMarker + "\n"
	trimmed := strings.TrimLeft(body, " \t\r\n")
	if !strings.HasPrefix(trimmed, head) {
		return body
	}
	rest := trimmed[len(head):]
	_, after, ok := strings.Cut(rest, "\n"+verifyingMarker+"\n")
	if !ok {
		return body
	}
	return Marker + "\n" + strings.TrimLeft(after, "\r\n")
}

// IsVerifying reports whether a comment body shows the verifying line.
func IsVerifying(body string) bool {
	return strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), Marker+"\n"+verifyingMarker+"\n")
}
