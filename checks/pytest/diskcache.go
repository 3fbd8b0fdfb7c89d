package pytest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/formula-code/template-verify/internal/rendercode"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/selfhash"
)

// diskCacheVersion changes when what a kept result means changes, so that
// results of an older judgement are not read back.
const diskCacheVersion = "pytest-cache-1"

// maxDiskEntry bounds a kept result that is read back.
const maxDiskEntry = 8 << 20

// diskCache keeps results across runs in the cache folder that
// rendercode.CacheEnv names (the CLI's and the Action's, with
// actions/cache), under pytest/<kind>/<key>.json. The zero value (the
// variable unset) keeps nothing.
type diskCache struct{ dir string }

// openDiskCache returns the cache of kind ("scenarios", "suite").
func openDiskCache(kind string) diskCache {
	d := os.Getenv(rendercode.CacheEnv)
	if d == "" {
		return diskCache{}
	}
	return diskCache{dir: filepath.Join(d, "pytest", kind)}
}

// on reports whether results are kept.
func (c diskCache) on() bool { return c.dir != "" }

// load reads the result kept under key into v; false when there is none
// or it does not decode (a damaged entry is run again, never trusted).
func (c diskCache) load(key string, v any) bool {
	if !c.on() {
		return false
	}
	data, err := safefile.Read(filepath.Join(c.dir, key+".json"), maxDiskEntry)
	if err != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v) == nil
}

// store keeps v under key. A cache that cannot be written costs a run
// next time, nothing else, so its errors are dropped.
func (c diskCache) store(key string, v any) {
	if !c.on() {
		return
	}
	data, err := json.Marshal(v)
	if err != nil || os.MkdirAll(c.dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.dir, key+".json")) != nil {
		_ = os.Remove(tmp.Name())
	}
}

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
