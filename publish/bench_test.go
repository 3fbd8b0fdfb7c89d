package publish

import (
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

// BenchmarkOutputOf builds the output of a check with 3,000 findings,
// which is cut to 65,535 bytes.
func BenchmarkOutputOf(b *testing.B) {
	fs := findings(3000)
	for i := range fs {
		fs[i].Details = strings.Repeat("details ", 40)
	}
	res := checks.Result{Check: "render", Conclusion: checks.Failure, Findings: fs, Details: strings.Repeat("x\n", 10000)}
	b.ReportAllocs()
	for b.Loop() {
		out := OutputOf(res, "template-verify run", 0)
		if len(out.Text) > MaxOutputBytes {
			b.Fatal("over the limit")
		}
	}
}

// BenchmarkCommentBody cuts a 300,000-character comment to 65,536.
func BenchmarkCommentBody(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(report.Marker + "\n| a | b |\n| --- | --- |\n")
	for i := range 12000 {
		fmt.Fprintf(&sb, "| row %d | ü |\n", i)
	}
	body := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		CommentBody(body)
	}
}
