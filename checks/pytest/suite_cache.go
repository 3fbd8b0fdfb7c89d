package pytest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/formula-code/template-verify/config"
)

// cachedSuite is runSuite through the cache folder (diskCache): a suite
// that passed is kept under the hash of everything its result depends on,
// and a later run with the same inputs reads it back instead of starting
// pytest. The inputs are the trees of the head and of the merge base (the
// tests may read any file), the suite's settings, the interpreter (its
// file's identity, its pytest, how the report shows it), pre_existing, and
// the tool build with its sandbox (toolKey). A suite that did not pass is
// never kept: a failure may come from a time limit on a busy machine, and
// it must run again. reused is true when the result was read back.
func cachedSuite(ctx context.Context, r *runner, co *checkouts, s config.Suite, defTimeout time.Duration, strict bool) (res suiteResult, reused bool) {
	disk := openDiskCache(ctx, "suite")
	key, ok := "", false
	if disk.on() {
		key, ok = suiteKey(ctx, r.py, co, s, defTimeout, strict)
	}
	if ok {
		var kept suiteResult
		if disk.load(key, &kept) && kept.Name == s.Name && kept.Status == suitePassed {
			return kept, true
		}
	}
	res = runSuite(ctx, r, co, s, defTimeout, strict)
	if ok && ctx.Err() == nil && res.Status == suitePassed && res.Regressions == 0 {
		disk.store(key, res)
	}
	return res, false
}

// suiteKey hashes the inputs of one suite's result; false when one cannot
// be read (then nothing is kept).
func suiteKey(ctx context.Context, py *python, co *checkouts, s config.Suite, defTimeout time.Duration, strict bool) (string, bool) {
	tk := toolKey(ctx)
	pk, ok := keyOf(py.Path)
	if tk == "" || !ok {
		return "", false
	}
	out, err := co.repo.Run(ctx, "rev-parse", co.head+"^{tree}", co.base+"^{tree}")
	if err != nil {
		return "", false
	}
	trees := strings.Fields(string(out))
	if len(trees) != 2 {
		return "", false
	}
	return hashKey("suite", tk, trees[0], trees[1], fmt.Sprintf("%#v", s), defTimeout, strict,
		fmt.Sprintf("%+v", pk), py.Path, py.Display, py.Pytest, strings.Join(pytestArgs("{junit}"), " ")), true
}

// reusedSuiteNote says that a suite's result was read back.
func reusedSuiteNote(name string) string {
	return fmt.Sprintf("The pytest suite %s did not run again. It passed in an earlier run with the same head and base trees, suite settings, python and tool build. Its result comes from the cache folder.", name)
}
