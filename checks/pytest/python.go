package pytest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
			versions[i], errs[i] = probe(ctx, p, scratch)
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
		return "", fmt.Errorf("cannot import pytest")
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
