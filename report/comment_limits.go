package report

import (
	"strings"

	"github.com/formula-code/template-verify/internal/markdown"
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
	// MaxAnnotationBytes is the longest annotation message and raw_details:
	// GitHub's "The maximum size is 64 KB.", read the stricter way, as
	// 64,000 bytes (internal/ghcontract, AnnotationMessage).
	MaxAnnotationBytes = 64000
	// DefaultMaxAnnotations is the most annotations one check run gets;
	// every finding is still in the check run's text.
	DefaultMaxAnnotations = 500
)

// CommentBody makes body fit for the comment: it starts with the hidden
// Marker, and it is at most MaxCommentBytes bytes, cut without
// breaking a code fence or a table, with a note that says what was cut.
func CommentBody(body string) string {
	if !strings.Contains(body, Marker) {
		body = Marker + "\n" + body
	}
	body, _ = markdown.Cut(body, MaxCommentBytes, markdown.Bytes)
	return body
}
