package pytest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/formula-code/template-verify/internal/junit"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// pyRun is one pytest process and what it left.
type pyRun struct {
	Targets  []string
	Out      sandbox.Outcome
	Report   *junit.Report // nil when pytest wrote no readable JUnit file
	JUnitErr error
	// Cases holds the test cases by node id.
	Cases map[string]junit.Case
	Order []string // node ids in file order
}

// runner runs pytest for one check run.
type runner struct {
	py      *python
	scratch string // folder for JUnit files and homes
	seq     atomic.Int64
}

// pytestArgs are the fixed options of every run. junit_family=xunit1 makes
// pytest write file and line attributes; --rootdir=. makes node ids
// relative to the repository top.
func pytestArgs(junitFile string) []string {
	return []string{"-m", "pytest", "-p", "no:cacheprovider", "--continue-on-collection-errors",
		"-o", "junit_family=xunit1", "--rootdir=.", "--junitxml=" + junitFile, "-q"}
}

// run runs pytest on targets in dir with env (KEY=VALUE) and home as HOME.
func (r *runner) run(ctx context.Context, dir, home string, env []string, targets []string, timeout time.Duration) (*pyRun, error) {
	jdir := filepath.Join(r.scratch, fmt.Sprintf("junit-%d", r.seq.Add(1)))
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		return nil, fmt.Errorf("junit folder: %w", err)
	}
	jfile := filepath.Join(jdir, "junit.xml")
	args := append([]string{r.py.Path}, pytestArgs(jfile)...)
	args = append(args, targets...)
	out := sandbox.Run(ctx, sandbox.Spec{
		Args:     args,
		Dir:      dir,
		Env:      env,
		Home:     home,
		Writable: []string{jdir},
		Timeout:  timeout,
		Sandbox:  true,
	})
	pr := &pyRun{Targets: targets, Out: out, Cases: map[string]junit.Case{}}
	// pytest's process could have left anything at jfile: ParseFile
	// refuses a symlink, a FIFO or a device and stops at a size limit.
	rep, err := junit.ParseFile(jfile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		pr.JUnitErr = fmt.Errorf("pytest wrote no JUnit file")
		return pr, nil
	case err != nil:
		pr.JUnitErr = err
		return pr, nil
	}
	pr.Report = rep
	for _, c := range rep.Cases() {
		id := c.NodeIDIn(dir)
		if old, ok := pr.Cases[id]; ok && old.Outcome.Bad() {
			continue // a failure wins over a later entry of the same id
		}
		if _, ok := pr.Cases[id]; !ok {
			pr.Order = append(pr.Order, id)
		}
		pr.Cases[id] = c
	}
	return pr, nil
}

// Bad returns the node ids of failed and errored cases, in file order.
func (p *pyRun) Bad() []string {
	var out []string
	for _, id := range p.Order {
		if p.Cases[id].Outcome.Bad() {
			out = append(out, id)
		}
	}
	return out
}

// Log is the captured stdout and stderr.
func (p *pyRun) Log() string { return string(p.Out.Stdout) + string(p.Out.Stderr) }

// stillBad reports whether id failed in p. A file id (a module that did not
// import) is bad when the file has a bad case or no case at all; a test id
// with no case is bad too, since nothing shows that it passes.
func (p *pyRun) stillBad(id string) bool {
	if strings.Contains(id, "::") {
		c, ok := p.Cases[id]
		return !ok || c.Outcome.Bad()
	}
	found := false
	for k, c := range p.Cases {
		if within(k, id) {
			found = true
			if c.Outcome.Bad() {
				return true
			}
		}
	}
	return !found
}

// envList turns a suite's env map into sorted KEY=VALUE entries.
func envList(env map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// within reports whether node id k is id itself or lies under it: a test
// of the file id, or a file of the folder id (a conftest.py that does not
// import makes the folder the id).
func within(k, id string) bool {
	return k == id || strings.HasPrefix(k, id+"::") || strings.HasPrefix(k, id+"/")
}

// fileOf is the file part of a node id.
func fileOf(id string) string {
	f, _, _ := strings.Cut(id, "::")
	return f
}
