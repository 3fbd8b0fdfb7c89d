package restore

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
)

// verified is a verified repository with a base and a head commit.
type verified struct {
	dir        string
	base, head string
}

// readTestdata returns a file under testdata.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// makeVerified builds a verified repository: the base commit holds the
// base files, the head commit changes them to head (a nil entry deletes).
func makeVerified(t testing.TB, baseFiles, headFiles map[string]string) verified {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	tree := fixture.Tree{}
	for p, s := range baseFiles {
		tree[p] = fixture.File(s)
	}
	base, err := fixture.Init(dir, tree, "base")
	if err != nil {
		t.Fatal(err)
	}
	repo := gitx.Repo{Dir: dir}
	for p, s := range headFiles {
		if err := fixture.WriteEntry(dir, p, fixture.File(s)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := repo.Run(ctx, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Run(ctx, "commit", "-q", "--allow-empty", "-m", "head"); err != nil {
		t.Fatal(err)
	}
	head, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Run(ctx, "tag", "base", base); err != nil {
		t.Fatal(err)
	}
	return verified{dir: dir, base: base, head: head}
}

// inputFor builds the check input the way the run command does: the
// head's config, the base's config, and the plan.
func inputFor(t testing.TB, v verified) *checks.Input {
	t.Helper()
	ctx := context.Background()
	repo := gitx.Repo{Dir: v.dir}
	decode := func(rev string) *config.Config {
		data, ok, err := repo.ReadFile(ctx, rev, config.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return config.Default()
		}
		cfg, err := config.Decode(config.Path, data)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := decode(v.head)
	p, err := plan.Build(ctx, repo, cfg, v.base, v.head)
	if err != nil {
		t.Fatal(err)
	}
	p.BaseRev, p.HeadRev = "base", "HEAD"
	return &checks.Input{Repo: v.dir, Plan: p, Config: cfg, BaseConfig: decode(v.base), WorkDir: t.TempDir()}
}

// scriptInput is the input for a verified repository whose head holds the
// test script testdata/scripts/<name> and the test config.
func scriptInput(t testing.TB, name string) *checks.Input {
	t.Helper()
	cfg := readTestdata(t, "config.yml")
	head := script(t, name)
	if name == "good.sh" {
		// A step the same at base and head runs no scenario: the good
		// head differs from its base by a comment, as a PR that touches
		// the step does.
		head = strings.Replace(head, "# Put agent edits", "# At head: put agent edits", 1)
	}
	v := makeVerified(t,
		map[string]string{config.Path: cfg, "tpl/tests/test.sh": readTestdata(t, "scripts/good.sh")},
		map[string]string{"tpl/tests/test.sh": head})
	return inputFor(t, v)
}

// script returns testdata/scripts/<name>. A wrong restore step is stored
// as <stem>.patch, a diff of good.sh, so each file shows only its mistake;
// git apply turns it into the whole script.
func script(t testing.TB, name string) string {
	t.Helper()
	if name == "good.sh" {
		return readTestdata(t, "scripts/good.sh")
	}
	return applyPatch(t, readTestdata(t, "scripts/good.sh"), filepath.Join("testdata", "scripts", strings.TrimSuffix(name, ".sh")+".patch"))
}

// applyPatch applies the patch file (a diff of a file named in it) to
// text with git apply and returns the result.
func applyPatch(t testing.TB, text, patchFile string) string {
	t.Helper()
	patch, err := filepath.Abs(patchFile)
	if err != nil {
		t.Fatal(err)
	}
	file, err := patchedFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", patch)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply %s: %v\n%s", patch, err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// patchedFile is the name of the file a one-file patch changes (its
// "--- a/NAME" line).
func patchedFile(patch string) (string, error) {
	b, err := os.ReadFile(patch)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(l, "--- a/"); ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s names no file", patch)
}

// treeDiff describes the first paths where two trees differ; "" if equal.
func treeDiff(want, got fixture.Tree) string {
	var out []string
	for _, p := range want.Paths() {
		g, ok := got[p]
		switch {
		case !ok:
			out = append(out, p+": missing")
		case !g.Same(want[p]):
			out = append(out, p+": differs")
		}
	}
	for _, p := range got.Paths() {
		if _, ok := want[p]; !ok {
			out = append(out, p+": extra")
		}
	}
	if len(out) > 5 {
		out = append(out[:5], "...")
	}
	return strings.Join(out, "; ")
}

// osMkdirTemp makes a temporary folder that TestMain removes.
func osMkdirTemp(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err == nil {
		tempDirs = append(tempDirs, dir)
	}
	return dir, err
}

var tempDirs []string

// TestMain gives the package's checks one probe folder (sharedProbes),
// unless benchmarks run: a benchmark times every probe. A test that
// counts probe runs names a cache folder of its own (Options.Cache).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		dir, err := osMkdirTemp("restore-probes-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sharedProbes = dir
	}
	code := m.Run()
	for _, d := range tempDirs {
		_ = os.RemoveAll(d)
	}
	os.Exit(code)
}

// scenarios picks catalogue scenarios by name.
func scenarios(t testing.TB, names ...string) []Scenario {
	t.Helper()
	var out []Scenario
	for _, n := range names {
		i := slices.IndexFunc(Catalogue(), func(s Scenario) bool { return s.Name == n })
		if i < 0 {
			t.Fatalf("no scenario %s", n)
		}
		out = append(out, Catalogue()[i])
	}
	return out
}
