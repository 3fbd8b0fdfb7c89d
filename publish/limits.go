package publish

import (
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

// GitHub's limits for check runs and comments.
//
// Deprecated: forwarding until callers move; use the constants of report.
const (
	MaxTitleChars         = report.MaxTitleChars
	MaxOutputBytes        = report.MaxOutputBytes
	AnnotationsPerRequest = report.AnnotationsPerRequest
	MaxAnnotationBytes    = report.MaxAnnotationBytes
	MaxCommentChars       = report.MaxCommentChars
	DefaultMaxAnnotations = report.DefaultMaxAnnotations
)

// CutChars returns s with at most n characters.
//
// Deprecated: forwarding until callers move; use markdown.CutChars.
func CutChars(s string, n int) string { return markdown.CutChars(s, n) }

// CutBytes returns s within n UTF-8 bytes.
//
// Deprecated: forwarding until callers move; use markdown.CutBytes.
func CutBytes(s string, n int, suffix string) string { return markdown.CutBytes(s, n, suffix) }
