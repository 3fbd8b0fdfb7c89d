package publish

import "github.com/formula-code/template-verify/checks"

// ConclusionOf maps a check's conclusion to GitHub's.
//
// Deprecated: forwarding until callers move; use checks.Conclusion.CheckRun.
func ConclusionOf(c checks.Conclusion) string { return c.CheckRun() }
