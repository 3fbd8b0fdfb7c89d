package pytest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/selfhash"
)

// diskCacheVersion changes when what a kept result means changes, so that
// results of an older judgement are not read back.
const diskCacheVersion = "pytest-cache-1"

// diskCache keeps results across runs in the cache folder of the context
// (resultcache: the CLI's TEMPLATE_VERIFY_CACHE_DIR, kept with
// actions/cache, or the App's data folder), under pytest/<kind>/<key>.json.
// The zero value (no folder) keeps nothing.
type diskCache struct{ dir resultcache.Dir }

// openDiskCache returns the cache of kind ("scenarios", "suite").
func openDiskCache(ctx context.Context, kind string) diskCache {
	return diskCache{dir: resultcache.Open(ctx, "pytest/"+kind)}
}

// on reports whether results are kept.
func (c diskCache) on() bool { return c.dir.On() }

// load reads the result kept under key into v; false when there is none
// or it does not decode (a damaged entry is run again, never trusted).
func (c diskCache) load(key string, v any) bool {
	data, ok := c.dir.Read(key)
	if !ok {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v) == nil
}

// store keeps v under key. A cache that cannot be written costs a run
// next time, nothing else.
func (c diskCache) store(key string, v any) { c.dir.Write(key, v) }

// toolKey identifies this build of the tool and the sandbox it runs
// commands in: the hash of the executable (its judgement, the scenario
// catalogue and the fixture are in it) and the sandbox backend. Empty
// when the executable cannot be read: then nothing is kept on disk.
func toolKey(ctx context.Context) string {
	h := selfhash.Hex()
	if h == "" {
		return ""
	}
	return diskCacheVersion + " " + h + " sandbox=" + sandbox.Backend(ctx)
}

// hashKey is the hex sha256 of its parts, each quoted.
func hashKey(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%q\x00", fmt.Sprint(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}
