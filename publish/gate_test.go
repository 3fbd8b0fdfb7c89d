package publish

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

func TestGateOf(t *testing.T) {
	res := func(cs ...checks.Conclusion) []checks.Result {
		var out []checks.Result
		for i, c := range cs {
			out = append(out, checks.Result{Check: []string{"render", "restore", "pytest"}[i], Conclusion: c})
		}
		return out
	}
	branches := []string{"release/*", "main"}
	tests := []struct {
		name    string
		base    string
		results []checks.Result
		want    string
		summary string
	}{
		{"all passed into main", "main", res(checks.Success, checks.Success), "success", "Every check passed"},
		{"passed and skipped", "release/template-v1", res(checks.Success, checks.Skipped), "success", "into `release/template-v1`"},
		{"all skipped", "main", res(checks.Skipped), "success", ""},
		{"nothing changed", "main", nil, "success", "No template changed"},
		{"a failure", "main", res(checks.Success, checks.Failure), "failure", "- `restore`: failed"},
		{"not run", "main", res(checks.Success, checks.NotRun), "failure", "- `restore`: not run"},
		{"timed out", "main", res(checks.TimedOut), "failure", "timed out"},
		{"cancelled", "main", res(checks.Cancelled), "failure", "cancelled"},
		{"unknown conclusion", "main", res("weird"), "failure", "unknown"},
		{"full ref", "refs/heads/release/x", res(checks.Failure), "failure", ""},
		{"not gated", "feature/x", res(checks.Failure), "skipped", "matches none of the gated branches (`release/*`, `main`)"},
		{"nested release branch is not release/*", "release/a/b", res(checks.Failure), "skipped", ""},
		{"no base branch", "", res(checks.Failure), "skipped", "No base branch is known"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := GateOf(tc.results, Gate{BaseRef: tc.base, Branches: branches})
			if g.Conclusion != tc.want {
				t.Errorf("conclusion %s, want %s (%s)", g.Conclusion, tc.want, g.Summary)
			}
			if !strings.Contains(g.Summary, tc.summary) {
				t.Errorf("summary %q lacks %q", g.Summary, tc.summary)
			}
			if g.Title == "" || len([]rune(g.Title)) > MaxTitleChars {
				t.Errorf("title %q", g.Title)
			}
		})
	}
	if g := GateOf(res(checks.Failure), Gate{BaseRef: "main"}); g.Conclusion != "skipped" || !strings.Contains(g.Summary, "names no gated branch") {
		t.Errorf("no branches: %+v", g)
	}
}
