package ghcontract

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limit is a size limit that GitHub enforces but its OpenAPI description
// does not state, or states in a unit GitHub does not count in. Max is
// the stricter reading of the sources; the fake refuses past it and the
// tool's cuts stay within it.
type Limit struct {
	Operations []string // operation ids
	Field      []string // property path in the request body
	Max        int
	Unit       string // "bytes" or "characters"
	Source     string
}

// The limits the spec leaves out.
var (
	// CommentBody: GitHub's 422 says "Body is too long (maximum is 65536
	// characters)" (resource IssueComment, field data, code
	// unprocessable; quoted in telia-oss/github-pr-resource#259 and
	// jmikedupont2/ai-ticket#51), while peers that measured the boundary
	// found it in bytes: 262,144 bytes taken and 262,145 refused, 65,536
	// four-byte emoji taken (objectstack-ai/objectstack#18826,
	// dead-claudia/github-limits#13, infracost/infracost#2119). 65,536
	// bytes is within both readings: a UTF-8 byte count is never below the
	// count of characters, code points or UTF-16 units.
	CommentBody = Limit{
		Operations: []string{"issues/create-comment", "issues/update-comment"},
		Field:      []string{"body"}, Max: 65536, Unit: "bytes",
		Source: `GitHub's 422 "Body is too long (maximum is 65536 characters)" (telia-oss/github-pr-resource#259); measured in bytes by objectstack-ai/objectstack#18826 and dead-claudia/github-limits#13`,
	}
	// OutputSummary and OutputText: the spec says maxLength 65535
	// ("characters"), which JSON Schema counts in code points; GitHub's
	// 422 counts bytes: "summary exceeds a maximum bytesize of 65535"
	// (github/docs#35252; also github/rest-api-description#5399).
	OutputSummary = Limit{
		Operations: []string{"checks/create", "checks/update"},
		Field:      []string{"output", "summary"}, Max: 65535, Unit: "bytes",
		Source: `GitHub's 422 "summary exceeds a maximum bytesize of 65535" (github/docs#35252)`,
	}
	OutputText = Limit{
		Operations: []string{"checks/create", "checks/update"},
		Field:      []string{"output", "text"}, Max: 65535, Unit: "bytes",
		Source: `as output.summary: GitHub counts bytes (github/docs#35252, jenkinsci/github-checks-plugin#345)`,
	}
	// CheckRunName and OutputTitle: neither the spec nor the REST docs
	// state a limit, and no GitHub error text for one was found in peer
	// projects. The annotation title, the one title the spec limits, takes
	// 255 characters ("The maximum size is 255 characters."); the stricter
	// reading assumes the same for these two, so the tool cuts there and
	// the fake refuses past it.
	CheckRunName = Limit{
		Operations: []string{"checks/create", "checks/update"},
		Field:      []string{"name"}, Max: 255, Unit: "characters",
		Source: "none found; the annotation title's stated 255 characters, assumed (stricter reading)",
	}
	OutputTitle = Limit{
		Operations: []string{"checks/create", "checks/update"},
		Field:      []string{"output", "title"}, Max: 255, Unit: "characters",
		Source: "none found; the annotation title's stated 255 characters, assumed (stricter reading)",
	}
	// AnnotationMessage: the spec says "The maximum size is 64 KB." for
	// an annotation's message and raw_details (rules.go reads it); the
	// stricter reading of KB is 1,000 bytes.
	AnnotationMessage = Limit{
		Operations: []string{"checks/create", "checks/update"},
		Field:      []string{"output", "annotations", "*", "message"}, Max: 64000, Unit: "bytes",
		Source: `the spec's "The maximum size is 64 KB.", read as 64,000 bytes`,
	}
)

// Limits are the limits a request check applies besides the spec's.
var Limits = []Limit{CommentBody, OutputSummary, OutputText, CheckRunName, OutputTitle}

// Exceeds reports whether s is over the limit.
func (l Limit) Exceeds(s string) bool { return l.Size(s) > l.Max }

// Size is the size of s in the limit's unit.
func (l Limit) Size(s string) int {
	if l.Unit == "characters" {
		return utf8.RuneCountInString(s)
	}
	return len(s)
}

func (l Limit) apply(op string, body any) []Violation {
	var applies bool
	for _, o := range l.Operations {
		applies = applies || o == op
	}
	if !applies {
		return nil
	}
	var out []Violation
	at(body, l.Field, nil, func(v any, loc []string) {
		if s, ok := v.(string); ok && l.Exceeds(s) {
			out = append(out, Violation{Field: "/" + strings.Join(loc, "/"),
				Rule:    fmt.Sprintf("limit %d %s, not in the spec (%s)", l.Max, l.Unit, l.Source),
				Message: fmt.Sprintf("%d %s", l.Size(s), l.Unit)})
		}
	})
	return out
}
