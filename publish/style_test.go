package publish

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/housestyle"
)

// TestTextsFollowHouseStyle lints the text this package writes (check-run
// outputs, gate summaries, cut notes) for sentence length, banned words
// and host names. The section rules are for the comment only.
func TestTextsFollowHouseStyle(t *testing.T) {
	rep := sampleReport()
	var texts []string
	for _, r := range rep.Results {
		o := OutputOf(r, rep.Command, 0)
		texts = append(texts, o.Summary, o.Text)
	}
	big := checks.Result{Check: "render", Conclusion: checks.Failure, Findings: findings(3000), Details: strings.Repeat("x\n", 40000)}
	o := OutputOf(big, "template-verify run", 10)
	texts = append(texts, o.Summary, o.Text[strings.LastIndex(o.Text, "> **Cut:**"):])
	for _, base := range []string{"main", "feature", ""} {
		for _, rs := range [][]checks.Result{nil, rep.Results, {{Check: "render", Conclusion: checks.Success}}} {
			g := GateOf(rs, Gate{BaseRef: base, Branches: mainGate.Branches})
			texts = append(texts, g.Title+".", g.Summary)
		}
	}
	cut, _ := cutMarkdown(strings.Repeat("line\n", 20000), MaxOutputBytes, inBytes)
	texts = append(texts, cut[strings.LastIndex(cut, "> **Cut:**"):])
	for _, s := range texts {
		for _, p := range housestyle.Lint(s) {
			if p.Rule == housestyle.RuleSection {
				continue
			}
			t.Errorf("%s\nin: %.300s", p, s)
		}
	}
}
