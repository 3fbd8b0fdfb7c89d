package pytest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// scenarioTTL is how long the results of a runner that passed every
// scenario are kept.
const scenarioTTL = 10 * time.Minute

// maxScenarioEntries bounds the kept results; the oldest go first.
const maxScenarioEntries = 32

// scenarioRuns keeps, for this process, the results of runners that passed
// every scenario. Every pull request that runs the pytest check runs the
// catalogue with its runner, which is the base's when the PR leaves it
// alone, so the App's back-to-back PRs on one base (and the tests) ran the
// same five scenarios, about 25 Python processes, again and again.
//
// Only a run where every scenario passed is kept: a failure may come from
// a time limit on a busy machine, and it must stay visible. The key holds
// everything a scenario's outcome depends on that can change within a
// process: the runner's bytes and name, how it is run and read, and the
// interpreter (its file's identity and its pytest). The fixture project
// and the catalogue are part of this binary, and whether the sandbox runs
// is decided once per process (sandbox.Available).
var scenarioRuns = newScenarioCache(runScenarios, time.Now)

// scenarioCache keeps the results of runners that passed every scenario.
type scenarioCache struct {
	memo *memo[string, []scenarioResult]
	run  func(ctx context.Context, spec runnerSpec, dir string, list []scenario) ([]scenarioResult, error)
}

func newScenarioCache(run func(context.Context, runnerSpec, string, []scenario) ([]scenarioResult, error), now func() time.Time) *scenarioCache {
	return &scenarioCache{memo: newMemo[string, []scenarioResult](scenarioTTL, maxScenarioEntries, now), run: run}
}

// reuse says where results came from: a run, this process's memory, or
// the cache folder of an earlier run.
type reuse int

const (
	ranNow reuse = iota
	fromMemory
	fromDisk
)

// get returns the results of the scenarios in list for the runner of spec:
// kept ones when this runner passed them all less than scenarioTTL ago, or
// when an earlier run kept them in the cache folder (diskCache), otherwise
// those of a new run in dir. Callers that ask for the same runner
// meanwhile wait for the run under way.
func (c *scenarioCache) get(ctx context.Context, spec runnerSpec, py *python, dir string, list []scenario) ([]scenarioResult, reuse, error) {
	key, ok := scenarioKey(spec, py, list)
	if !ok {
		rs, err := c.run(ctx, spec, dir, list)
		return rs, ranNow, err
	}
	disk := openDiskCache(ctx, "scenarios")
	diskKey := ""
	if tk := toolKey(ctx); tk != "" && disk.on() {
		diskKey = hashKey(key, tk)
	}
	ran, src := false, fromMemory
	results, err := c.memo.get(ctx, key,
		func() ([]scenarioResult, error) {
			ran = true
			var kept []scenarioResult
			if diskKey != "" && disk.load(diskKey, &kept) && sameNames(kept, list) && allPassed(kept) {
				src = fromDisk
				return kept, nil
			}
			src = ranNow
			rs, err := c.run(ctx, spec, dir, list)
			if err == nil && ctx.Err() == nil && allPassed(rs) && diskKey != "" {
				disk.store(diskKey, rs)
			}
			return rs, err
		},
		func(rs []scenarioResult, err error) bool { return err == nil && ctx.Err() == nil && allPassed(rs) })
	if err != nil {
		if !ran {
			return nil, src, fmt.Errorf("runner scenarios: %w", err)
		}
		return results, src, err
	}
	if src != ranNow {
		slog.DebugContext(ctx, "runner scenarios: kept results of the same runner", "runner", filepath.Base(spec.Runner), "from_disk", src == fromDisk)
	}
	// The kept slice is shared: every caller gets its own copy.
	return cloneResults(results), src, nil
}

// sameNames reports whether kept results are those of list, in order.
func sameNames(kept []scenarioResult, list []scenario) bool {
	if len(kept) != len(list) {
		return false
	}
	for i := range kept {
		if kept[i].Name != list[i].Name {
			return false
		}
	}
	return true
}

// scenarioKey hashes what the outcome of list depends on; false when the
// runner or the interpreter cannot be read (then nothing is kept).
func scenarioKey(spec runnerSpec, py *python, list []scenario) (string, bool) {
	f, err := os.Open(spec.Runner)
	if err != nil {
		return "", false
	}
	defer f.Close()
	pk, ok := keyOf(spec.Python)
	if !ok {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	fmt.Fprintf(h, "\x00%q %q %q %q %q %s\x00%+v %q\x00", filepath.Base(spec.Runner), spec.Command, spec.Result,
		spec.Regressed, spec.TestsRan, spec.Timeout, pk, py.Pytest)
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		fmt.Fprintf(h, "%q=%q\x00", k, spec.Env[k])
	}
	// The catalogue and the fixture are this binary's: their contents are
	// in the key for the cache folder, which outlives the process.
	for _, s := range list {
		fmt.Fprintf(h, "%#v\x00", s)
	}
	fmt.Fprintf(h, "%#v\x00", fixtureBase)
	return hex.EncodeToString(h.Sum(nil)), true
}

func allPassed(results []scenarioResult) bool {
	for _, r := range results {
		if !r.Passed() {
			return false
		}
	}
	return len(results) > 0
}

func cloneResults(rs []scenarioResult) []scenarioResult {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Reported = slices.Clone(out[i].Reported)
		out[i].Problems = slices.Clone(out[i].Problems)
	}
	return out
}
