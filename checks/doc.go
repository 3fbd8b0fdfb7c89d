// Package checks holds the result model that every check returns and the
// runner that executes checks concurrently with time limits.
//
// A check knows nothing of GitHub or of the output format: it fills a Result,
// and the report package turns results into markdown, JSON or text.
package checks
