// The probe cache: a policy probe is the most expensive run of a check (the
// step over every file of the fixture, about nine scenarios' worth, see
// BenchmarkProbe), and what it learns is decided by the step as it runs,
// the fixture, the report's keys and the sandbox settings. It is stored by
// a hash of those, so a later run that probes the same step on the same
// fixture (the base of a second push whose head changed the step, or of
// another PR on the same base) reuses it instead of running it again.

package restore

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/selfhash"
)

// probeCacheVersion changes when what a probe entry holds changes.
const probeCacheVersion = "restore-probe-1"

// storedProbe is what a probe entry keeps: what the probe learned, or why
// it learned nothing.
type storedProbe struct {
	Learned map[string]bool
	Odd     []string
	Err     string
}

// probeCache is the folder of probe entries for opts: the "probe" folder
// of an explicit cache folder, else "restore/probe" of the context's,
// else sharedProbes.
func probeCache(ctx context.Context, opts settled) resultcache.Dir {
	if opts.Cache != "" {
		return resultcache.At(opts.Cache, "probe")
	}
	if d := resultcache.Open(ctx, "restore/probe"); d.On() {
		return d
	}
	return resultcache.At(sharedProbes, "")
}

// sharedProbes is the probe folder of a check whose options and context
// name no cache. The tool leaves it "": such a check keeps no probe. The
// package's tests set one folder for the test binary (TestMain), so that
// a step one test probed is read by a later test that probes it with the
// same key, as a second PR reads its base's probe.
var sharedProbes string

// probeKey is the hash of what decides a probe of r's step: the tool, what
// runs (whatRuns), the report's keys, the fixture's commit (its whole tree,
// from which the probe's edits are made) and the settings of a run. ""
// when it cannot be hashed.
func (r *runner) probeKey() string {
	tool := selfhash.Hex()
	if tool == "" {
		return ""
	}
	what, err := json.Marshal(whatRuns(r.step))
	if err != nil {
		return ""
	}
	keys, err := json.Marshal(r.reportKeys())
	if err != nil {
		return ""
	}
	o := r.opts
	settings := fmt.Sprintf("sandbox %v path %q timeout %s output %d", o.Sandbox, o.Path, o.ScenarioTimeout, o.MaxOutput)
	return hashParts(probeCacheVersion, tool, string(what), string(keys), r.baseSHA, settings)
}

// learnPolicyCached is learnPolicy through the probe cache: a stored
// probe with the same key is reused (Cached holds the key), and a probe
// whose result depends on the step alone is stored. A probe that timed
// out or could not be set up depends on the machine and is not stored.
func (r *runner) learnPolicyCached(ctx context.Context) probeResult {
	dir := probeCache(ctx, r.opts)
	if !dir.On() {
		return r.learnPolicy(ctx)
	}
	key := r.probeKey()
	if key == "" {
		return r.learnPolicy(ctx)
	}
	if data, ok := dir.Read(key); ok {
		var s storedProbe
		err := json.Unmarshal(data, &s)
		if err == nil {
			return probeResult{Learned: s.Learned, Odd: s.Odd, Err: s.Err, Cached: key}
		}
		slog.Debug("restore probe cache entry unreadable", "key", key, "err", err)
	}
	p := r.learnPolicy(ctx)
	if p.Out.Verdict != TimedOut && p.Out.Verdict != Broken && p.Out.After != nil && ctx.Err() == nil {
		dir.Write(key, storedProbe{Learned: p.Learned, Odd: p.Odd, Err: p.Err})
	}
	return p
}
