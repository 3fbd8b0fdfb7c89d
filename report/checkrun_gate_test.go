package report

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formula-code/template-verify/checks"
)

func TestGateRun(t *testing.T) {
	t.Parallel()
	res := func(cs ...checks.Conclusion) []checks.Result {
		var out []checks.Result
		for i, c := range cs {
			out = append(out, checks.Result{Check: []string{"render", "restore", "pytest"}[i], Conclusion: c})
		}
		return out
	}
	branches := []string{"release/*", "main"}
	const fork = true
	tests := []struct {
		name    string
		gate    checks.Gate
		results []checks.Result
		title   string
		summary []string
	}{
		{"all passed", checks.Gate{BaseRef: "main", Branches: branches}, res(checks.Success, checks.Success), "Every check passed or was skipped", []string{"no check blocks the merge into `main`."}},
		{"passed and skipped", checks.Gate{BaseRef: "release/template-v1", Branches: branches}, res(checks.Success, checks.Skipped), "Every check passed or was skipped", []string{"into `release/template-v1`"}},
		{"nothing changed", checks.Gate{BaseRef: "main", Branches: branches}, nil, "No template changed", []string{"No template changed"}},
		{"blocking", checks.Gate{BaseRef: "main", Branches: branches}, res(checks.Success, checks.Failure, checks.NotRun), "2 checks of 3 block the merge", []string{"- `restore`: failed\n- `pytest`: not run"}},
		{"one blocking", checks.Gate{BaseRef: "main", Branches: branches}, res("weird"), "1 check of 1 block the merge", []string{"- `render`: unknown"}},
		{"not gated", checks.Gate{BaseRef: "feature/x", Branches: branches}, res(checks.Failure), "The gate does not apply to this branch", []string{"matches none of the gated branches (`release/*`, `main`)"}},
		{"no base branch", checks.Gate{Branches: branches}, res(checks.Failure), "The gate does not apply to this branch", []string{"No base branch is known"}},
		{"no gated branches", checks.Gate{BaseRef: "main"}, res(checks.Failure), "The gate does not apply to this branch", []string{"names no gated branch, so the gate does not apply to `main`."}},
		{"unknown policy", checks.Gate{PolicyErr: errors.New("no <clone>")}, res(checks.Failure), "1 check of 1 block the merge", []string{"pull requests into the base branch", "could not read the gated branches at the base: no &lt;clone>"}},
		{"untrusted pass", checks.Gate{BaseRef: "main", Branches: branches, Untrusted: fork}, res(checks.Success), untrustedGateTitle, []string{"comments `/template-verify` on the pull request", "\n\nThe report says: Every check passed or was skipped."}},
		{"untrusted failure", checks.Gate{BaseRef: "main", Branches: branches, Untrusted: fork}, res(checks.Failure), "1 check of 1 block the merge", []string{"- `render`: failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := GateRun(checks.GateOf(tc.results, tc.gate))
			if out.Title != tc.title || utf8.RuneCountInString(out.Title) > MaxTitleChars {
				t.Errorf("title %q, want %q", out.Title, tc.title)
			}
			for _, s := range tc.summary {
				if !strings.Contains(out.Summary, s) {
					t.Errorf("summary %q lacks %q", out.Summary, s)
				}
			}
		})
	}
}
