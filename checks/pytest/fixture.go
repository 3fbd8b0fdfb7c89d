package pytest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
)

// The fixture Python project that the runner scenarios change. Its tests
// all pass at the base commit, except test_known_bad, which fails before
// any change: a runner that reports it has no run at base.
var fixtureBase = map[string]string{
	".gitignore": "__pycache__/\n*.pyc\n",
	"pytest.ini": "[pytest]\n",
	"conftest.py": `import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
`,
	"src/pkg/__init__.py": "",
	"src/pkg/alpha.py": `def x():
    return 1


def y():
    return 2
`,
	"src/pkg/beta.py": `def gamma():
    return 3
`,
	"src/pkg/gamma.py": `def z():
    return 4
`,
	"tests/test_alpha.py": `from pkg import alpha


def test_x():
    assert alpha.x() == 1


def test_x_type():
    assert isinstance(alpha.x(), int)
`,
	"tests/test_other.py": `from pkg import alpha


def test_y():
    assert alpha.y() == 2


def test_known_bad():
    assert alpha.y() == 3, "this test fails before any change"


class TestOther:
    def test_in_class(self):
        assert alpha.__name__ == "pkg.alpha"
`,
	"tests/test_beta.py": `from pkg.beta import gamma


def test_gamma():
    assert gamma() == 3
`,
	"tests/test_gamma.py": `import os

from pkg import gamma


def test_z():
    assert gamma.z() == 4


def test_once():
    # With FC_FLAKY_MARKER set, the first run fails and later runs pass.
    marker = os.environ.get("FC_FLAKY_MARKER")
    if marker and not os.path.exists(marker):
        open(marker, "w").close()
        raise AssertionError("the first run of this test fails")
`,
}

// buildFixture writes the base project into dir as a git repository with
// one commit and returns its sha.
func buildFixture(ctx context.Context, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("fixture: %w", err)
	}
	repo := gitx.Repo{Dir: dir}
	if _, err := repo.Run(ctx, "init", "-q", "-b", "main"); err != nil {
		return "", fmt.Errorf("fixture: %w", err)
	}
	for _, p := range slices.Sorted(maps.Keys(fixtureBase)) {
		if err := writeFile(dir, p, fixtureBase[p]); err != nil {
			return "", err
		}
	}
	if _, err := repo.Run(ctx, "add", "-A"); err != nil {
		return "", fmt.Errorf("fixture: %w", err)
	}
	if _, err := repo.Run(ctx, "commit", "-q", "-m", "base"); err != nil {
		return "", fmt.Errorf("fixture: %w", err)
	}
	return repo.Resolve(ctx, "HEAD")
}

func writeFile(dir, rel, content string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("fixture: %w", err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("fixture: %w", err)
	}
	return nil
}

// testPathRes are the test-file patterns of the restore policy
// (config.TestFilePatterns), compiled.
var testPathRes = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, p := range config.TestFilePatterns {
		out = append(out, regexp.MustCompile(p))
	}
	return out
}()

func isTestPath(p string) bool {
	for _, re := range testPathRes {
		if re.MatchString(p) {
			return true
		}
	}
	return false
}

// stage says how the agent's edits end up in the repository.
type stage string

const (
	committed stage = "commit"   // committed on top of the base
	staged    stage = "stage"    // in the index only
	unstaged  stage = "worktree" // in the work tree only
)

// edit replaces a file's content, or deletes it when Delete is set.
type edit struct {
	Path    string
	Content string
	Delete  bool
}

// scenario is one agent-like change and the regressions the runner must
// report for it.
type scenario struct {
	Name  string
	About string // what the scenario shows, one sentence
	Edits []edit
	Stage stage
	// RestoreTests puts changed test files back to the base before the
	// runner runs, as the restore step of test.sh does in a real task.
	RestoreTests bool
	// Flaky sets FC_FLAKY_MARKER, so tests/test_gamma.py::test_once fails
	// on its first run only.
	Flaky bool
	// Want lists the regression ids the runner must report, each with the
	// feature that is likely missing when it does not.
	Want map[string]string
}

// extraHints names the feature a runner likely lacks when it reports one of
// these ids as a regression.
var extraHints = map[string]string{
	"tests/test_gamma.py::test_once":      "it fails once and then passes: no second run?",
	"tests/test_other.py::test_known_bad": "it fails at base too: no run at base?",
}

const brokenAlphaX = `def x():
    return 10


def y():
    return 2
`

// scenarios is the catalogue of runner scenarios.
func scenarios() []scenario {
	return []scenario{
		{
			Name:  "name-mapped-break",
			About: "A change to src/pkg/alpha.py breaks a test in tests/test_alpha.py.",
			Edits: []edit{{Path: "src/pkg/alpha.py", Content: brokenAlphaX}},
			Stage: committed,
			Want:  map[string]string{"tests/test_alpha.py::test_x": "no mapping from src/pkg/alpha.py to tests/test_alpha.py?"},
		},
		{
			Name:  "unmapped-break",
			About: "A change to src/pkg/alpha.py breaks a test in tests/test_other.py, which no name maps to.",
			Edits: []edit{{Path: "src/pkg/alpha.py", Content: strings.Replace(fixtureBase["src/pkg/alpha.py"], "return 2", "return 20", 1)}},
			Stage: unstaged,
			Want:  map[string]string{"tests/test_other.py::test_y": "no wider check?"},
		},
		{
			Name:  "import-break",
			About: "A change to src/pkg/beta.py makes tests/test_beta.py fail to import.",
			Edits: []edit{{Path: "src/pkg/beta.py", Content: "def delta():\n    return 3\n"}},
			Stage: staged,
			Want:  map[string]string{"tests/test_beta.py": "a test file that does not import is not counted (no --continue-on-collection-errors?)"},
		},
		{
			Name:  "hidden-break",
			About: "The agent breaks src/pkg/alpha.py and edits the test to hide it; the restore step puts the test back first.",
			Edits: []edit{
				{Path: "src/pkg/alpha.py", Content: brokenAlphaX},
				{Path: "tests/test_alpha.py", Content: strings.Replace(fixtureBase["tests/test_alpha.py"], "== 1", "== 10", 1)},
			},
			Stage:        committed,
			RestoreTests: true,
			Want:         map[string]string{"tests/test_alpha.py::test_x": "the restored test does not run against the changed code?"},
		},
		{
			Name:  "flaky-once",
			About: "A test fails on its first run and passes on the second: not a regression.",
			Edits: []edit{{Path: "src/pkg/gamma.py", Content: fixtureBase["src/pkg/gamma.py"] + "\n\ndef z2():\n    return 8\n"}},
			Stage: unstaged,
			Flaky: true,
			Want:  map[string]string{},
		},
	}
}

// apply writes the scenario's edits into the project and stages or commits
// them; with RestoreTests it then puts the test files back to base.
func (s scenario) apply(ctx context.Context, dir, base string) error {
	repo := gitx.Repo{Dir: dir}
	for _, e := range s.Edits {
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		if e.Delete {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("scenario %s: %w", s.Name, err)
			}
			continue
		}
		if err := writeFile(dir, e.Path, e.Content); err != nil {
			return err
		}
	}
	switch s.Stage {
	case committed, staged:
		if _, err := repo.Run(ctx, "add", "-A"); err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if s.Stage == committed {
			if _, err := repo.Run(ctx, "commit", "-q", "-m", "agent change"); err != nil {
				return fmt.Errorf("scenario %s: %w", s.Name, err)
			}
		}
	}
	if !s.RestoreTests {
		return nil
	}
	for _, e := range s.Edits {
		if !isTestPath(e.Path) {
			continue
		}
		if _, ok, err := repo.ReadFile(ctx, base, e.Path); err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		} else if ok {
			if _, err := repo.Run(ctx, "checkout", "-q", base, "--", e.Path); err != nil {
				return fmt.Errorf("scenario %s: restore %s: %w", s.Name, e.Path, err)
			}
			continue
		}
		if _, err := repo.Run(ctx, "rm", "-q", "--cached", "--ignore-unmatch", "--", e.Path); err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(e.Path))); err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
	}
	return nil
}
