package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	pytestcheck "github.com/formula-code/template-verify/checks/pytest"
)

// TestConfigTurnsTheRealCheckOff: the decision "the config turns this
// check off" is verify's alone. With the real pytest check (which no longer
// decides it), a check the head turns off is skipped when the base has it
// off too and not run when this PR turns it off, each with a reason; it is
// never passed, and the check itself never runs.
func TestConfigTurnsTheRealCheckOff(t *testing.T) {
	t.Parallel()
	const suite = "pytest: {suites: [{name: unit, files: [tests], triggers: ['tpl/**']}]}\n"
	cases := []struct {
		name, base, head string
		want             checks.Conclusion
		reason           string
	}{
		{"a null block at base and head", cfgA + "pytest: null\n", cfgA + "pytest: null\n", checks.Skipped, "turns it off"},
		{"the PR writes a null block", cfgA + suite, cfgA + "pytest: null\n", checks.NotRun, "but the base does not"},
		{"the PR disables it", cfgA + suite, cfgA + suite + "checks: {disable: [pytest]}\n", checks.NotRun, "but the base does not"},
		{"disabled at base and head", cfgA + suite + "checks: {disable: [pytest]}\n", cfgA + suite + "checks: {disable: [pytest]}\n", checks.Skipped, "turns it off"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := repoWith(t, c.base, c.head)
			only := func() []checks.Check { return []checks.Check{pytestcheck.New()} }
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: only})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 1 {
				t.Fatalf("results %+v, want the pytest result alone", rep.Results)
			}
			got := rep.Results[0]
			if got.Conclusion != c.want || !strings.Contains(got.Summary, c.reason) || got.Title == "" {
				t.Errorf("pytest %s %q: %q, want %s with %q", got.Conclusion, got.Title, got.Summary, c.want, c.reason)
			}
			if got.Conclusion == checks.Success || rep.Overall == checks.Success && c.want == checks.NotRun {
				t.Errorf("a check the config turns off passed: %s, overall %s", got.Conclusion, rep.Overall)
			}
		})
	}
}
