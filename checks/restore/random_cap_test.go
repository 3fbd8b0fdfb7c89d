package restore

import (
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
)

// TestRandomScenariosCapped: restore.random.count of a billion was a fatal
// out-of-memory; the sets stop at the ceiling of limits.random_sets.
func TestRandomScenariosCapped(t *testing.T) {
	base := fixture.Project()
	cases := []struct {
		count, want int
	}{
		{1_000_000_000, config.CeilingLimits.RandomSets},
		{3, 3},
		{-1, 0},
	}
	for _, c := range cases {
		if got := len(RandomScenarios(base, 1, c.count)); got != c.want {
			t.Errorf("count %d: %d sets, want %d", c.count, got, c.want)
		}
	}
}
