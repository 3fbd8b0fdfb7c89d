package examples

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

const (
	harborRoot = "src/datasmith/harbor_adapter/template"
	testSh     = harborRoot + "/tests/test.sh"
	setupSh    = harborRoot + "/tests/setup.sh"
	runnerPy   = harborRoot + "/tests/pytest_runner.py"
	debianPy   = "/usr/bin/python3"
)

// shared is an example built once for the tests that only read it (or
// add branches before any parallel test runs).
type shared struct {
	once  sync.Once
	built *Built
	err   error
}

// get builds the example with the extra heads in a new temporary folder
// named prefix*, the first time; TestMain removes it.
func (s *shared) get(t *testing.T, prefix string, extra ...string) *Built {
	t.Helper()
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", prefix)
		if err != nil {
			s.err = err
			return
		}
		ctx := context.Background()
		if s.built, s.err = Build(ctx, dir); s.err == nil {
			s.err = s.built.addHeads(ctx, extra...)
		}
	})
	if s.err != nil {
		t.Fatalf("build the example: %v", s.err)
	}
	return s.built
}

var example0 shared

// example returns one built example, shared by the tests that only read it.
func example(t *testing.T) *Built {
	t.Helper()
	return example0.get(t, "datasmith-mini-")
}

// TestMain removes the shared examples after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range []*shared{&example0, &withHeads} {
		if s.built != nil {
			_ = os.RemoveAll(s.built.Dir)
			_ = os.RemoveAll(s.built.Dir + "-exports") // revRenders
		}
	}
	os.Exit(code)
}

// git runs git in the example and returns its trimmed output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitx.Repo{Dir: dir}.Run(context.Background(), args...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return strings.TrimSpace(string(out))
}

// export writes the tree of rev into a new temporary folder.
func export(t *testing.T, b *Built, rev string) string {
	t.Helper()
	dir := t.TempDir()
	if err := (gitx.Repo{Dir: b.Dir}).Export(context.Background(), rev, dir); err != nil {
		t.Fatalf("export %s: %v", rev, err)
	}
	return dir
}

// revs returns "base" and every head with their shas, in a fixed order.
func revs(b *Built) [][2]string {
	out := [][2]string{{"base", b.Base}}
	for _, h := range HeadNames() {
		out = append(out, [2]string{h, b.Heads[h]})
	}
	return out
}

// configAt decodes the example config of an exported tree.
func configAt(t *testing.T, dir string) *config.Config {
	t.Helper()
	data, err := os.ReadFile(dir + "/" + config.Path)
	if err != nil {
		t.Fatalf("read config: %v", err)
	}
	cfg, err := config.Decode(config.Path, data)
	if err != nil {
		t.Fatalf("decode config: %v", err)
	}
	return cfg
}

// needPython skips the test when Debian's python3 cannot import the modules.
func needPython(t *testing.T, modules ...string) {
	t.Helper()
	if _, err := os.Stat(debianPy); err != nil {
		t.Skipf("%s is not installed", debianPy)
	}
	for _, m := range modules {
		if err := exec.Command(debianPy, "-c", "import "+m).Run(); err != nil {
			t.Skipf("%s cannot import %s", debianPy, m)
		}
	}
}
