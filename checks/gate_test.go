package checks

import (
	"errors"
	"slices"
	"testing"
)

func TestGateOf(t *testing.T) {
	t.Parallel()
	res := func(cs ...Conclusion) []Result {
		var out []Result
		for i, c := range cs {
			out = append(out, Result{Check: []string{"render", "restore", "pytest"}[i], Conclusion: c})
		}
		return out
	}
	branches := []string{"release/*", "main"}
	unread := errors.New("no clone")
	const fork = true
	tests := []struct {
		name     string
		gate     Gate
		results  []Result
		want     GateConclusion
		blocking []string
		notGated NotGated
	}{
		{"all passed into main", Gate{BaseRef: "main", Branches: branches}, res(Success, Success), GatePassed, nil, ""},
		{"passed and skipped", Gate{BaseRef: "release/template-v1", Branches: branches}, res(Success, Skipped), GatePassed, nil, ""},
		{"all skipped", Gate{BaseRef: "main", Branches: branches}, res(Skipped), GatePassed, nil, ""},
		{"nothing changed", Gate{BaseRef: "main", Branches: branches}, nil, GatePassed, nil, ""},
		{"a failure", Gate{BaseRef: "main", Branches: branches}, res(Success, Failure), GateFailed, []string{"restore"}, ""},
		{"not run", Gate{BaseRef: "main", Branches: branches}, res(Success, NotRun), GateFailed, []string{"restore"}, ""},
		{"timed out and cancelled", Gate{BaseRef: "main", Branches: branches}, res(TimedOut, Cancelled), GateFailed, []string{"render", "restore"}, ""},
		{"unknown conclusion", Gate{BaseRef: "main", Branches: branches}, res("weird"), GateFailed, []string{"render"}, ""},
		{"full ref", Gate{BaseRef: "refs/heads/release/x", Branches: branches}, res(Failure), GateFailed, []string{"render"}, ""},
		{"not gated", Gate{BaseRef: "feature/x", Branches: branches}, res(Failure), GateSkipped, nil, NotGatedNoMatch},
		{"nested release branch is not release/*", Gate{BaseRef: "release/a/b", Branches: branches}, res(Failure), GateSkipped, nil, NotGatedNoMatch},
		{"no base branch", Gate{Branches: branches}, res(Failure), GateSkipped, nil, NotGatedNoBranch},
		{"no gated branches", Gate{BaseRef: "main"}, res(Failure), GateSkipped, nil, NotGatedNoBranches},
		{"unknown policy, failure, no branch", Gate{PolicyErr: unread}, res(Failure), GateFailed, []string{"render"}, ""},
		{"unknown policy, branch not listed", Gate{BaseRef: "feature", Branches: []string{"main"}, PolicyErr: unread}, res(NotRun), GateFailed, []string{"render"}, ""},
		{"unknown policy, all passed", Gate{BaseRef: "feature", PolicyErr: unread}, res(Success), GatePassed, nil, ""},
		{"untrusted pass", Gate{BaseRef: "main", Branches: branches, Untrusted: fork}, res(Success), GateActionRequired, nil, ""},
		{"untrusted, no template changed", Gate{BaseRef: "main", Branches: branches, Untrusted: fork}, nil, GateActionRequired, nil, ""},
		{"untrusted failure", Gate{BaseRef: "main", Branches: branches, Untrusted: fork}, res(Failure), GateFailed, []string{"render"}, ""},
		{"untrusted, branch not gated", Gate{BaseRef: "dev", Branches: branches, Untrusted: fork}, res(Success), GateSkipped, nil, NotGatedNoMatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := GateOf(tc.results, tc.gate)
			var blocking []string
			for _, b := range v.Blocking {
				blocking = append(blocking, b.Check)
			}
			if v.Conclusion != tc.want || !slices.Equal(blocking, tc.blocking) || v.NotGated != tc.notGated {
				t.Errorf("got %s %v %q, want %s %v %q", v.Conclusion, blocking, v.NotGated, tc.want, tc.blocking, tc.notGated)
			}
			if tc.gate.Applies() != (tc.notGated == "") {
				t.Errorf("Applies() = %v", tc.gate.Applies())
			}
			if v.Untrusted != (v.Conclusion == GateActionRequired) {
				t.Errorf("untrusted %v with %s", v.Untrusted, v.Conclusion)
			}
			if v.Checks != len(tc.results) || v.PolicyErr != tc.gate.PolicyErr {
				t.Errorf("checks %d, policy error %v", v.Checks, v.PolicyErr)
			}
		})
	}
}
