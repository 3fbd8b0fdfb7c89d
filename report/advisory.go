// Advisory findings: the warnings that come from a default setting which
// may not apply to this repository. In a check that passes, the reports
// list them with the check's notes, not as warnings.

package report

import (
	"strings"

	"github.com/formula-code/template-verify/checks"
)

// quiet returns res with its advisory findings moved to its notes when
// res passed; else res as it is. The result it returns shares nothing
// that it changes with res.
func quiet(res checks.Result) checks.Result {
	if res.Conclusion != checks.Success || !hasAdvisory(res.Findings) {
		return res
	}
	out := res
	out.Findings = nil
	out.Notes = append([]string(nil), res.Notes...)
	for _, f := range res.Findings {
		if !f.Advisory {
			out.Findings = append(out.Findings, f)
			continue
		}
		out.Notes = append(out.Notes, advisoryNote(f))
	}
	return out
}

func hasAdvisory(fs []checks.Finding) bool {
	for _, f := range fs {
		if f.Advisory {
			return true
		}
	}
	return false
}

// advisoryNote is the note of an advisory finding: its title, where, and
// its message.
func advisoryNote(f checks.Finding) string {
	var b strings.Builder
	if f.Title != "" {
		b.WriteString(strings.TrimRight(f.Title, ".") + ". ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// quieted returns a copy of r whose passing results have their advisory
// findings moved to their notes (see quiet); r itself is unchanged.
func (r *Report) quieted() *Report {
	changed := false
	results := make([]checks.Result, len(r.Results))
	for i, res := range r.Results {
		results[i] = quiet(res)
		changed = changed || len(results[i].Findings) != len(res.Findings)
	}
	if !changed {
		return r
	}
	out := *r
	out.Results = results
	return &out
}
