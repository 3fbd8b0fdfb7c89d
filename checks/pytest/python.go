package pytest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/internal/sandbox"
)

// fallbackPython is tried after the python3 on PATH.
const fallbackPython = "/usr/bin/python3"

// python is an interpreter that can import pytest.
type python struct {
	Path    string // absolute path
	Display string // how the reproduce commands name it: "python3" or the path
	Pytest  string // pytest version
}

// findPython returns the configured interpreter, or the first of python3 on
// PATH and /usr/bin/python3 that can import pytest.
func findPython(ctx context.Context, configured, scratch string) (*python, error) {
	var cands []string
	if configured != "" {
		cands = []string{configured}
	} else {
		if p, err := exec.LookPath("python3"); err == nil {
			cands = append(cands, p)
		}
		cands = append(cands, fallbackPython)
	}
	// Resolve each candidate once, then probe them all at the same time
	// and take the first that works, in candidate order.
	var paths, tried []string
	seen := map[string]bool{}
	for _, c := range cands {
		p, err := exec.LookPath(c)
		if err == nil {
			p, err = filepath.Abs(p)
		}
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: not found", c))
			continue
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	versions := make([]string, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			versions[i], errs[i] = probes.get(ctx, p, scratch)
		}()
	}
	wg.Wait()
	for i, p := range paths {
		if errs[i] == nil {
			return &python{Path: p, Display: displayName(p), Pytest: versions[i]}, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", p, errs[i]))
	}
	return nil, fmt.Errorf("no python with pytest (%s)", strings.Join(tried, "; "))
}

// probeTTL is how long a probe's answer is kept: a run starts the
// interpreters in well under a minute, and pytest installed or removed
// on a long-running server is seen within this time.
const probeTTL = 10 * time.Minute

// probes keeps the probe answers of this process. The pytest check runs
// once per pull request; probing two interpreters costs two Python starts
// with an import of pytest (about 0.1 s of CPU each), which the App's
// back-to-back runs and the tests repeat dozens of times.
var probes = newProbeCache(probe, time.Now)

// probeCache keeps probe answers per interpreter file.
type probeCache struct {
	memo  *memo[probeKey, string]
	probe func(ctx context.Context, p, scratch string) (string, error)
}

func newProbeCache(probe func(ctx context.Context, p, scratch string) (string, error), now func() time.Time) *probeCache {
	return &probeCache{memo: newMemo[probeKey, string](probeTTL, 0, now), probe: probe}
}

// probeKey names an interpreter file as it is now: replacing or editing
// it (a new python, a rewritten shim) makes a new key. A shim that picks
// its interpreter from other files (pyenv's version files) keeps its key:
// a change there is seen when the answer is older than probeTTL.
type probeKey struct {
	path       string
	dev, ino   uint64
	size       int64
	mtime      time.Time
	ctimeNanos int64
}

// get returns the answer of probe for p, from the cache when the same file
// was probed less than probeTTL ago; one probe per file runs at a time. A
// file that cannot be read is probed every time, as is a probe that did
// not end with Python's answer (cancelled, timed out, the sandbox or the
// interpreter failed otherwise), which says nothing lasting.
func (c *probeCache) get(ctx context.Context, p, scratch string) (string, error) {
	key, ok := keyOf(p)
	if !ok {
		return c.probe(ctx, p, scratch)
	}
	return c.memo.get(ctx, key,
		func() (string, error) { return c.probe(ctx, p, scratch) },
		func(_ string, err error) bool { return err == nil || errors.Is(err, errNoPytest) })
}

// keyOf is the identity of the file p resolves to.
func keyOf(p string) (probeKey, bool) {
	info, err := os.Stat(p)
	if err != nil {
		return probeKey{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return probeKey{}, false
	}
	return probeKey{
		path: p, dev: uint64(st.Dev), ino: st.Ino, size: info.Size(), mtime: info.ModTime(),
		ctimeNanos: st.Ctim.Nano(),
	}, true
}

// errNoPytest is the probe's answer for an interpreter that ran and said
// it has no pytest module.
var errNoPytest = errors.New("cannot import pytest")

// probe runs p -c "import pytest" in the sandbox, because the configured
// name comes from the pull request.
func probe(ctx context.Context, p, scratch string) (string, error) {
	dir, err := os.MkdirTemp(scratch, "probe-")
	if err != nil {
		return "", fmt.Errorf("python probe: %w", err)
	}
	out := sandbox.Run(ctx, sandbox.Spec{
		Args:    []string{p, "-c", "import pytest; print(pytest.__version__)"},
		Dir:     dir,
		Timeout: 30 * time.Second,
		Sandbox: true,
	})
	if out.Err != nil {
		return "", out.Err
	}
	if out.ExitCode != 0 {
		// Only Python's own answer is kept (see probeCache.get): a sandbox
		// that failed to start says nothing about the interpreter.
		if strings.Contains(string(out.Stderr), "No module named") {
			return "", errNoPytest
		}
		return "", fmt.Errorf("cannot import pytest (exit status %d)", out.ExitCode)
	}
	return strings.TrimSpace(string(out.Stdout)), nil
}

// displayName is "python3" when that name on PATH is p, so that the
// reproduce commands stay short; otherwise the full path.
func displayName(p string) string {
	if q, err := exec.LookPath("python3"); err == nil && sameFile(p, q) {
		return "python3"
	}
	return p
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
