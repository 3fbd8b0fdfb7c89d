package restore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// TestProbeIsReusedByContent: a probe of the same step on the same fixture
// with the same settings is read from the cache, and the check concludes
// as a run that probed: the base's probe of a first PR serves a second PR
// on the same base whose head changes the step otherwise; settings that
// change a run probe again.
func TestProbeIsReusedByContent(t *testing.T) {
	t.Parallel()
	input := func(t *testing.T, script string) *checks.Input {
		in := scriptInput(t, script)
		in.Config.Restore.Random.Count = 0
		return in
	}
	cached := func(res checks.Result, side string) bool {
		return slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "The "+side+"'s probe is an earlier run's") })
	}
	cache := t.TempDir()
	// A probe that times out is not stored: the limit is one no loaded
	// machine reaches, so that the test never races it.
	opts := Options{Cache: cache, Catalogue: scenarios(t, "no-change", "add-benchmark-with-space"), ScenarioTimeout: 10 * time.Minute}
	ctx := context.Background()

	first, ri := New().WithOptions(opts).run(ctx, input(t, "good.sh"))
	if ri == nil || first.Conclusion != checks.Success {
		logFindings(t, first)
		t.Fatalf("first PR: conclusion %s: %s", first.Conclusion, first.Title)
	}
	if ri.probes != 2 || cached(first, "base") || cached(first, "head") {
		t.Fatalf("first PR: %d probe runs, notes %q; want both probes run", ri.probes, first.Notes)
	}

	// Another PR on the same base: its head's step differs, its base's is
	// the first PR's.
	second, ri := New().WithOptions(opts).run(ctx, input(t, "spaces.sh"))
	if ri == nil {
		t.Fatalf("second PR: no scenario ran: %s", second.Title)
	}
	if ri.probes != 1 || !cached(second, "base") || cached(second, "head") {
		t.Errorf("second PR: %d probe runs, notes %q; want the base's probe read from the cache and the head's run", ri.probes, second.Notes)
	}
	// The same PR with an empty cache: the same verdict and findings.
	fresh := New().WithOptions(Options{Catalogue: opts.Catalogue, ScenarioTimeout: opts.ScenarioTimeout, Cache: t.TempDir()}).Run(ctx, input(t, "spaces.sh"))
	if fresh.Conclusion != second.Conclusion || fresh.Title != second.Title {
		t.Errorf("with the cached probe: %s %q; probing again: %s %q", second.Conclusion, second.Title, fresh.Conclusion, fresh.Title)
	}
	if !slices.Equal(findingTexts(second), findingTexts(fresh)) || len(fresh.Findings) == 0 {
		t.Errorf("findings with the cached probe:\n%s\nprobing again:\n%s", strings.Join(findingTexts(second), "\n"), strings.Join(findingTexts(fresh), "\n"))
	}

	// A setting that changes a run is part of the key, as is the step:
	// each of these probes again.
	in := input(t, "spaces.sh")
	keyOf := func(o Options, in *checks.Input) string {
		r, cleanup, st := New().WithOptions(o).setup(ctx, in)
		if st != nil {
			t.Fatalf("setup: %s", st.title)
		}
		defer cleanup()
		return r.probeKey()
	}
	key := keyOf(opts, in)
	if key == "" {
		t.Fatal("no probe key")
	}
	if again := keyOf(opts, input(t, "spaces.sh")); again != key {
		t.Errorf("the same step and settings: key %s, then %s", key, again)
	}
	slower, bare := opts, opts
	slower.ScenarioTimeout = 11 * time.Minute
	bare.NoSandbox = true
	for name, k := range map[string]string{
		"another scenario timeout": keyOf(slower, in),
		"no sandbox":               keyOf(bare, in),
		"another step":             keyOf(opts, input(t, "good.sh")),
	} {
		if k == key {
			t.Errorf("%s: the same probe key %s", name, key)
		}
	}
}

// findingTexts is each finding as one line, for comparing two results.
func findingTexts(res checks.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, string(f.Level)+" "+f.Title+": "+f.Message)
	}
	return out
}
