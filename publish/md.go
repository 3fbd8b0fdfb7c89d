package publish

import "github.com/formula-code/template-verify/internal/markdown"

// Forwarders for checkruns.go and comment.go.
//
// Deprecated: forwarding until callers move; use report (report.Running,
// report.Aborted, report.Refused, report.CommentBody) and
// internal/markdown.
var (
	prose       = markdown.Inline
	code        = markdown.Code
	inChars     = markdown.Chars
	cutMarkdown = markdown.Cut
)

// Deprecated: forwarding until callers move; use markdown.Ellipsis.
const ellipsis = markdown.Ellipsis
