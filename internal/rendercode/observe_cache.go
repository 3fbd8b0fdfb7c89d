package rendercode

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/resultcache"
)

// observeKey is the content key of one observation.
func observeKey(ctx context.Context, repo gitx.Repo, rev, python string, tests []string, env map[string]string) (string, error) {
	out, err := repo.Run(ctx, "rev-parse", "--verify", "--quiet", rev+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("observation key: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "tree %s\npython %s\nplugin %x\n", strings.TrimSpace(string(out)), python, sha256.Sum256([]byte(observePlugin)))
	for _, t := range tests {
		fmt.Fprintf(h, "test %s\n", t)
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "env %s=%s\n", k, env[k])
	}
	fmt.Fprintf(h, "bounds %s %d %d\n", ObserveTimeout, ObserveMaxRecords, ObserveMaxBytes)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cachedObserve is Observe through the cache folder of ctx
// (resultcache): a recording depends only on the tree of the commit, the
// tests run, their environment, the interpreter and the plugin, so a
// second run on the same tree reads it back (with a note that says so)
// instead of running the tests again. A recording that timed out or was
// cut is never kept.
func cachedObserve(ctx context.Context, repo gitx.Repo, rev, python string, tests []string, env map[string]string) (*Observation, error) {
	dir := resultcache.Open(ctx, "observe")
	if !dir.On() {
		return Observe(ctx, repo, rev, python, tests, env)
	}
	key, err := observeKey(ctx, repo, rev, python, tests, env)
	if err != nil {
		return Observe(ctx, repo, rev, python, tests, env)
	}
	if data, ok := dir.Read(key); ok {
		var o Observation
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // integers stay integers (goValue)
		if dec.Decode(&o) == nil {
			o.Cached = true
			return &o, nil
		}
	}
	o, err := Observe(ctx, repo, rev, python, tests, env)
	if err != nil || o.Incomplete {
		return o, err
	}
	dir.Write(key, o)
	return o, nil
}
