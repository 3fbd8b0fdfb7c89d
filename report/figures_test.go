package report

import (
	"maps"
	"testing"
)

// TestFigureNumbers: the prose values of the checks' figures give typed
// numbers (issue 11.5).
func TestFigureNumbers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		value string
		want  map[string]float64
	}{
		{"37 of 37 pass", map[string]float64{"pass": 37, "total": 37}},
		{"10 of 10 pass (seed 1)", map[string]float64{"pass": 10, "total": 10, "seed": 1}},
		{"35 of 37 pass; 2 fail before this change", map[string]float64{"pass": 35, "total": 37, "fail_before_this_change": 2}},
		{"18.80 s for 47 scenario runs, 2 at a time", map[string]float64{"seconds": 18.8, "scenario_runs": 47, "at_a_time": 2}},
		{"18.80 s for 47 scenario runs and 10 with the base's step, 2 at a time", map[string]float64{"seconds": 18.8, "scenario_runs": 47, "with_the_base_s_step": 10, "at_a_time": 2}},
		{"3 templates, 9 variable sets, 18 renders", map[string]float64{"templates": 3, "variable_sets": 9, "renders": 18}},
		{"Python Jinja2 3.1.6 rendered 18 renders; gonja differs in 0", map[string]float64{"renders": 18, "gonja_differs_in": 0}},
		{"33 passed", map[string]float64{"passed": 33}},
		{"1 failed, 32 passed, 2 skipped, 1 error", map[string]float64{"failed": 1, "passed": 32, "skipped": 2, "error": 1}},
		{"0 of 1", map[string]float64{"count": 0, "total": 1}},
		{"4", map[string]float64{"count": 4}},
		{"0 new, 0 before this change", map[string]float64{"new": 0, "before_this_change": 0}},
		{"18 runs of 2 script heads, in the bubblewrap sandbox; 0 values changed", map[string]float64{"runs": 18, "script_heads": 2, "values_changed": 0}},
		{"not run", nil},
		{"stopped at the time limit of 5m0s", nil},
		{"no tests collected", nil},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			if got := FigureNumbers(tc.value); !maps.Equal(got, tc.want) {
				t.Errorf("FigureNumbers(%q) = %v, want %v", tc.value, got, tc.want)
			}
		})
	}
}
