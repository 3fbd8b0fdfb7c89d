// The results cache: a check run whose step is the same bytes at base and
// head, on the same fixture, gives the result of the base's step. It is
// stored by a hash of every input that decides it, and a later run with
// the same inputs reuses it instead of running the scenarios again.

package restore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/selfhash"
)

// CacheEnv names the folder of the restore results cache; unset or empty,
// no result is stored or reused.
const CacheEnv = "TEMPLATE_VERIFY_RESTORE_CACHE"

// cacheVersion changes when what a cache entry holds changes.
const cacheVersion = "restore-cache-1"

// cacheKey is the hash of the inputs of a check run: the tool, the
// rendered step with its settings, the restore blocks of head and base
// with pre_existing, the options that change a result, the fixture's
// commit (its whole tree) and the variable sets compared. "" when the
// inputs cannot be hashed.
func cacheKey(r *runner, in *checks.Input, explicit []Scenario, sets int) string {
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
	h := sha256.New()
	for _, part := range []string{cacheVersion, tool, string(step), string(block), r.baseSHA, fmt.Sprint(sets)} {
		fmt.Fprintf(h, "%d:%s\n", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cachedResult reads the result stored under key; ok is false when there
// is none (or the cache is off).
func cachedResult(dir, key string) (checks.Result, bool) {
	var res checks.Result
	if dir == "" || key == "" {
		return res, false
	}
	data, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return res, false
	}
	if err := json.Unmarshal(data, &res); err != nil {
		slog.Debug("restore cache entry unreadable", "key", key, "err", err)
		return res, false
	}
	return res, true
}

// storeResult writes res under key, through a temporary file so that a
// reader never sees half an entry. A failure only loses the entry.
func storeResult(dir, key string, res checks.Result) {
	if dir == "" || key == "" {
		return
	}
	data, err := json.Marshal(res)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	var f *os.File
	if err == nil {
		f, err = os.CreateTemp(dir, key+".*.tmp")
	}
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), filepath.Join(dir, key+".json"))
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}
	if err != nil {
		slog.Debug("restore cache entry not stored", "key", key, "err", err)
	}
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
	return fmt.Sprintf("The restore step renders to the same bytes at base and head, on the same fixture: the base's results, from an earlier run with the same inputs (key %s), are reused and no scenario ran.", key[:12])
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
