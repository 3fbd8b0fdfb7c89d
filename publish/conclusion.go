package publish

import "github.com/formula-code/template-verify/checks"

// ConclusionOf maps a check's conclusion to GitHub's. A check that did not
// run is "neutral", never "success"; an unknown value is "neutral" too.
func ConclusionOf(c checks.Conclusion) string {
	switch c {
	case checks.Success, checks.Failure, checks.Skipped, checks.TimedOut, checks.Cancelled:
		return string(c)
	}
	return "neutral"
}
