package ghcontract

import (
	"testing"

	"github.com/formula-code/template-verify/report"
)

// The tool cuts its outputs within the stricter reading of each limit.
func TestToolBudgetsWithinLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		budget int
		unit   string
		limit  Limit
	}{
		{"comment body", report.MaxCommentBytes, "bytes", CommentBody},
		{"output summary and text", report.MaxOutputBytes, "bytes", OutputSummary},
		{"output title", report.MaxTitleChars, "characters", OutputTitle},
		{"annotation message and raw_details", report.MaxAnnotationBytes, "bytes", AnnotationMessage},
	} {
		if tc.budget > tc.limit.Max || (tc.unit != tc.limit.Unit && tc.limit.Unit == "bytes") {
			t.Errorf("%s: the tool's budget is %d %s, the limit %d %s (%s)", tc.name, tc.budget, tc.unit, tc.limit.Max, tc.limit.Unit, tc.limit.Source)
		}
	}
	if report.AnnotationsPerRequest > 50 {
		t.Errorf("%d annotations a request, the spec's maxItems is 50", report.AnnotationsPerRequest)
	}
}

// The spec's "The maximum size is 64 KB." reaches the check as 64,000
// bytes, the same reading as AnnotationMessage.
func TestDescriptionRules(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	op := c.Match("POST", "/repos/o/r/check-runs")
	got := map[string]int{}
	for _, r := range op.rules {
		got[r.kind+" "+joinPath(r.path)] = r.limit
	}
	for k, want := range map[string]int{
		"maxBytes output/annotations/*/message":     AnnotationMessage.Max,
		"maxBytes output/annotations/*/raw_details": AnnotationMessage.Max,
		"maxChars output/annotations/*/title":       255,
		"requiredIf conclusion":                     0,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("rule %s: %d (found %v), want %d; rules %v", k, v, ok, want, got)
		}
	}
}

func joinPath(p []string) string {
	out := ""
	for i, s := range p {
		if i > 0 {
			out += "/"
		}
		out += s
	}
	return out
}
