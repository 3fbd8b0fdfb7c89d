package restore

import "testing"

func TestJudgeBase(t *testing.T) {
	timedOut := []string{"the step ran past the limit of 1s and was killed"}
	tests := []struct {
		name       string
		head, base Outcome
		want       bool // pre-existing
	}{
		{"same differences at base", Outcome{Verdict: Fail, Diffs: []string{"a", "b"}}, Outcome{Verdict: Fail, Diffs: []string{"b", "a", "c"}}, true},
		{"a difference only at head", Outcome{Verdict: Fail, Diffs: []string{"a", "new"}}, Outcome{Verdict: Fail, Diffs: []string{"a"}}, false},
		{"base passes", Outcome{Verdict: Fail, Diffs: []string{"a"}}, Outcome{Verdict: Pass}, false},
		// Under load the base's run can run out of time too; that proves
		// nothing about the step.
		{"both time out", Outcome{Verdict: TimedOut, Diffs: timedOut}, Outcome{Verdict: TimedOut, Diffs: timedOut}, false},
		{"head fails, base times out", Outcome{Verdict: Fail, Diffs: []string{"a"}}, Outcome{Verdict: TimedOut, Diffs: timedOut}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judgeBase(tt.head, tt.base); got.PreExisting != tt.want {
				t.Errorf("PreExisting %v, want %v (only at head %q)", got.PreExisting, tt.want, got.OnlyAtHead)
			}
		})
	}
}
