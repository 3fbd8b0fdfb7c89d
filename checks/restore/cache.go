// The results cache: a check run's result is decided by the rendered
// steps of base and head, their settings and the fixture. It is stored by
// a hash of every input that decides it (in the cache folder of the
// context, resultcache), and a later run with the same inputs (the same
// PR pushed again with the step unchanged, or another PR whose step and
// base are the same) reuses it instead of running the scenarios again.

package restore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/selfhash"
)

// cacheVersion changes when what a cache entry holds changes.
const cacheVersion = "restore-cache-1"

// cacheKey is the hash of the inputs of a check run: the tool, the
// head's rendered step with its settings, the base's (baseStep: the
// head's result is judged against it), the restore blocks of head and
// base with pre_existing, the options that change a result, the fixture's
// commit (its whole tree) and the variable sets compared. "" when the
// inputs cannot be hashed.
func cacheKey(r *runner, in *checks.Input, explicit []Scenario, sets int, baseStep string) string {
	tool := selfhash.Hex()
	if tool == "" {
		return ""
	}
	step, err := json.Marshal(r.step)
	if err != nil {
		return ""
	}
	var baseBlock any
	if in.BaseConfig != nil {
		baseBlock = in.BaseConfig.Restore
	}
	o := r.opts
	block, err := json.Marshal(struct {
		Head, Base  any
		Strict      bool
		Timeout     string
		MaxOutput   int64
		Path        string
		Sandbox     bool
		Consistency bool
		Catalogue   string
	}{in.Config.Restore, baseBlock, config.PreExistingFails(in.BaseConfig, in.Config), o.ScenarioTimeout.String(), o.MaxOutput, o.Path, o.Sandbox, o.Consistency,
		scenarioText(explicit)})
	if err != nil {
		return ""
	}
	return hashParts(cacheVersion, tool, string(step), baseStep, string(block), r.baseSHA, fmt.Sprint(sets))
}

// hashParts is the SHA-256 of parts, each with its length, as hex: the
// key of a cache entry (parts cannot run into one another).
func hashParts(parts ...string) string {
	h := sha256.New()
	for _, part := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// baseStepText is the base's rendered restore step (renderBaseStep) for
// the cache key: its JSON, or why there is none.
func baseStepText(s *Step, st *stop) string {
	if st != nil {
		return "no step: " + st.title
	}
	data, err := json.Marshal(s)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return string(data)
}

// cachedResult reads the result stored under key; ok is false when there
// is none (or the cache is off).
func cachedResult(dir resultcache.Dir, key string) (checks.Result, bool) {
	var res checks.Result
	data, ok := dir.Read(key)
	if !ok {
		return res, false
	}
	if err := json.Unmarshal(data, &res); err != nil {
		slog.Debug("restore cache entry unreadable", "key", key, "err", err)
		return res, false
	}
	return res, true
}

// scenarioText is a list of scenarios as text, for the key.
func scenarioText(list []Scenario) string {
	var b strings.Builder
	for _, sc := range list {
		fmt.Fprintf(&b, "%s %v\n%s", sc.Name, sc.NoBaseline, FormatEdits(sc.Edits))
	}
	return b.String()
}

// reusedNote says that a result is reused and by which key.
func reusedNote(key string) string {
	return fmt.Sprintf("The restore step renders to the same bytes at base and head as in an earlier run, with the same settings and fixture: that run's results (key %s) are reused and no scenario ran.", key[:12])
}

// cacheable reports whether a run's outcomes may be stored: none timed
// out or could not be set up, which depends on the machine.
func cacheable(ri resultInput) bool {
	for _, list := range [][]Outcome{ri.catalogue, ri.random} {
		for _, o := range list {
			if o.Verdict == TimedOut || o.Verdict == Broken {
				return false
			}
		}
	}
	return ri.skipReason == ""
}
