package checks

import "testing"

func TestOverall(t *testing.T) {
	t.Parallel()
	r := func(cs ...Conclusion) []Result {
		var out []Result
		for _, c := range cs {
			out = append(out, Result{Conclusion: c})
		}
		return out
	}
	cases := []struct {
		name string
		in   []Result
		want Conclusion
	}{
		{"nothing ran", nil, NotRun},
		{"all pass", r(Success, Success), Success},
		{"skipped does not count", r(Success, Skipped), Success},
		{"only skipped", r(Skipped, Skipped), NotRun},
		{"not run is never a pass", r(Success, NotRun), NotRun},
		{"cancelled is not a pass", r(Success, Cancelled), NotRun},
		{"failure wins over not run", r(NotRun, Failure), Failure},
		{"time-out fails", r(Success, TimedOut), Failure},
	}
	for _, tc := range cases {
		if got := Overall(tc.in); got != tc.want {
			t.Errorf("%s: Overall = %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, c := range []Conclusion{NotRun, Skipped, Cancelled, TimedOut, Failure} {
		if c.Passed() {
			t.Errorf("%s counts as passed", c)
		}
	}
}

// TestConclusionCheckRun: a check that did not run, or an unknown value,
// is neutral on GitHub, never success.
func TestConclusionCheckRun(t *testing.T) {
	t.Parallel()
	for in, want := range map[Conclusion]string{
		Success: "success", Failure: "failure", NotRun: "neutral",
		Skipped: "skipped", TimedOut: "timed_out", Cancelled: "cancelled", "weird": "neutral",
	} {
		if got := in.CheckRun(); got != want {
			t.Errorf("%s -> %s, want %s", in, got, want)
		}
	}
}
