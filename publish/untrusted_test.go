package publish

import (
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// Untrusted results never pass the gate: a pass becomes action_required
// (GitHub does not count it as passed), a failure stays a failure, and a
// branch that is not gated stays skipped.
func TestGateOfUntrusted(t *testing.T) {
	u := &Untrusted{Title: "A fork's own report cannot pass the gate", Summary: "Run /template-verify."}
	pass := []checks.Result{{Check: "render", Conclusion: checks.Success}}
	fail := []checks.Result{{Check: "render", Conclusion: checks.Failure}}
	cases := []struct {
		name    string
		results []checks.Result
		gate    Gate
		want    string
	}{
		{"trusted pass", pass, Gate{BaseRef: "main", Branches: []string{"main"}}, "success"},
		{"untrusted pass", pass, Gate{BaseRef: "main", Branches: []string{"main"}, Untrusted: u}, "action_required"},
		{"untrusted, no template changed", nil, Gate{BaseRef: "main", Branches: []string{"main"}, Untrusted: u}, "action_required"},
		{"untrusted failure", fail, Gate{BaseRef: "main", Branches: []string{"main"}, Untrusted: u}, "failure"},
		{"untrusted, branch not gated", pass, Gate{BaseRef: "dev", Branches: []string{"main"}, Untrusted: u}, "skipped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := GateOf(tc.results, tc.gate)
			if got.Conclusion != tc.want {
				t.Fatalf("conclusion %s, want %s", got.Conclusion, tc.want)
			}
			if tc.want == "action_required" && (got.Title != u.Title || got.Summary == "") {
				t.Errorf("title %q summary %q", got.Title, got.Summary)
			}
		})
	}
}
