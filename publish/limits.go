package publish

import (
	"strings"
	"unicode/utf8"
)

// GitHub's limits for check runs and comments.
const (
	// MaxTitleChars is the longest check-run output title and annotation
	// title, in characters.
	MaxTitleChars = 255
	// MaxOutputBytes is the longest check-run output summary and text, in
	// UTF-8 bytes.
	MaxOutputBytes = 65535
	// AnnotationsPerRequest is the most annotations one create or update
	// request may carry; later requests append.
	AnnotationsPerRequest = 50
	// MaxAnnotationBytes is the longest annotation message and raw_details
	// (64 KiB).
	MaxAnnotationBytes = 64 << 10
	// MaxCommentChars is the longest comment body, in characters.
	MaxCommentChars = 65536
	// DefaultMaxAnnotations is the most annotations one check run gets;
	// every finding is still in the check run's text.
	DefaultMaxAnnotations = 500
)

// ellipsis ends a cut title or message.
const ellipsis = "…"

// CutChars returns s with at most n characters (runes). A cut string ends
// with an ellipsis, within the n characters. Invalid UTF-8 becomes U+FFFD
// first, as JSON encoding would make it.
func CutChars(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	keep := n - 1
	i := 0
	for keep > 0 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		keep--
	}
	return s[:i] + ellipsis
}

// CutBytes returns s within n UTF-8 bytes, cut on a rune boundary. A cut
// string ends with suffix, within the n bytes; when the suffix does not
// fit, the cut has none.
func CutBytes(s string, n int, suffix string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	if len(suffix) > n {
		suffix = ""
	}
	return prefixBytes(s, n-len(suffix)) + suffix
}

// prefixBytes is the longest prefix of valid UTF-8 s within n bytes that
// ends on a rune boundary.
func prefixBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// prefixRunes is the longest prefix of s with at most n runes.
func prefixRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// A measure is how a limit counts: UTF-8 bytes (check-run outputs) or
// characters (comments).
type measure struct {
	size   func(string) int
	prefix func(string, int) string
	unit   string // "bytes" or "characters"
}

var (
	inBytes = measure{size: func(s string) int { return len(s) }, prefix: prefixBytes, unit: "bytes"}
	inChars = measure{size: utf8.RuneCountInString, prefix: prefixRunes, unit: "characters"}
)
