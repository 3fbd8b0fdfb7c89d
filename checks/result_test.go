package checks

import "testing"

func TestOverall(t *testing.T) {
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
