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
	"sync"
	"time"

	"github.com/formula-code/template-verify/internal/sandbox"
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
// process: the runner's bytes and name, how it is run and read, the
// interpreter (its file's identity and its pytest), and whether the
// sandbox runs. The fixture project and the catalogue are part of this
// binary.
var scenarioRuns = newScenarioCache(runScenarios, time.Now)

type scenarioCache struct {
	mu sync.Mutex
	m  map[string]scenarioEntry
	// flight holds, per key, a channel closed when the run under way
	// ends: checks that start together wait for it.
	flight map[string]chan struct{}
	now    func() time.Time
	run    func(ctx context.Context, spec runnerSpec, dir string, list []scenario) ([]scenarioResult, error)
}

type scenarioEntry struct {
	results []scenarioResult
	at      time.Time
}

func newScenarioCache(run func(context.Context, runnerSpec, string, []scenario) ([]scenarioResult, error), now func() time.Time) *scenarioCache {
	return &scenarioCache{m: map[string]scenarioEntry{}, flight: map[string]chan struct{}{}, now: now, run: run}
}

// get returns the results of the scenarios in list for the runner of spec:
// kept ones when this runner passed them all less than scenarioTTL ago,
// otherwise those of a new run in dir.
func (c *scenarioCache) get(ctx context.Context, spec runnerSpec, py *python, dir string, list []scenario) ([]scenarioResult, error) {
	key, ok := scenarioKey(spec, py, list)
	for ok {
		c.mu.Lock()
		if e, hit := c.m[key]; hit && c.now().Sub(e.at) < scenarioTTL {
			c.mu.Unlock()
			slog.DebugContext(ctx, "runner scenarios: results of the same runner", "runner", filepath.Base(spec.Runner), "age", c.now().Sub(e.at).Round(time.Second))
			return cloneResults(e.results), nil
		}
		busy, waiting := c.flight[key]
		if !waiting {
			done := make(chan struct{})
			c.flight[key] = done
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				delete(c.flight, key)
				c.mu.Unlock()
				close(done)
			}()
			break
		}
		c.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, fmt.Errorf("runner scenarios: %w", ctx.Err())
		}
	}
	results, err := c.run(ctx, spec, dir, list)
	if err != nil || !ok || ctx.Err() != nil || !allPassed(results) {
		return results, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, e := range c.m {
		if now.Sub(e.at) >= scenarioTTL {
			delete(c.m, k)
		}
	}
	for len(c.m) >= maxScenarioEntries {
		oldest := ""
		for k, e := range c.m {
			if oldest == "" || e.at.Before(c.m[oldest].at) {
				oldest = k
			}
		}
		delete(c.m, oldest)
	}
	c.m[key] = scenarioEntry{results: cloneResults(results), at: now}
	return results, nil
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
	fmt.Fprintf(h, "\x00%q %q %q %q %q %s %v\x00%+v %q\x00", filepath.Base(spec.Runner), spec.Command, spec.Result,
		spec.Regressed, spec.TestsRan, spec.Timeout, sandbox.Available(), pk, py.Pytest)
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		fmt.Fprintf(h, "%q=%q\x00", k, spec.Env[k])
	}
	for _, s := range list {
		fmt.Fprintf(h, "%q\x00", s.Name)
	}
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
