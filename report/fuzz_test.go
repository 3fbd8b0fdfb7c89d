package report

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/housestyle"
)

// FuzzMarkdown puts random text into the fields a check fills. The comment
// always renders, fits the limit, and keeps its structure: sections,
// fences and footer rules hold whatever the text.
func FuzzMarkdown(f *testing.F) {
	f.Add("title", "message", "details\n```\n", "--- a\n+++ b\n", "render", 4000)
	f.Add("## Usage", "<!-- x", "````", "\n\n\n", "a|b", 2000)
	f.Add("é日本", "`x` ``y``", strings.Repeat("z\n", 3000), strings.Repeat("+ü\n", 5000), "c\"d", 65536)
	f.Fuzz(func(t *testing.T, title, msg, details, diff, check string, limit int) {
		if limit < 8000 || limit > 1<<20 {
			limit = 8000
		}
		r := failingRender()
		r.Results[0].Check = check
		r.Results[0].Title = title
		r.Results[0].Findings[0].Message = msg
		r.Results[0].Findings[0].Details = details
		r.Results[0].Changes[0].Diff = diff
		r.Results[1].Tables[0].Rows = append(r.Results[1].Tables[0].Rows, []string{msg, title})
		r.Notes = []string{msg}
		md, err := r.MarkdownLimit(limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(md) > limit {
			t.Fatalf("%d bytes, limit %d", len(md), limit)
		}
		for _, p := range housestyle.Lint(md) {
			switch p.Rule {
			case housestyle.RuleSection, housestyle.RuleFence, housestyle.RuleMermaid, housestyle.RuleFooter:
				t.Fatalf("%v\n%s", p, md)
			}
		}
	})
}
