package examples

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/description"
	"github.com/formula-code/template-verify/checks/taint"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/verify"
)

// The heads of the taint check. Their files are in heads/; the tests build
// them on a copy of the example.
const (
	// headTaintFlags reads the skip flags after the profile files, as the
	// first commit of datasmith's FC_SKIP_PYTEST change did.
	headTaintFlags = "taint-flags-after-source"
	// headTaintNewFlag adds FC_SKIP_TIMING the right way: read before any
	// source into a readonly copy, then unset (the near miss that passes).
	headTaintNewFlag = "taint-new-flag"
)

func runOne(t *testing.T, b *Built, head string, c checks.Check, desc string) checks.Result {
	t.Helper()
	rep, err := verify.Run(context.Background(), verify.Options{
		RepoDir: b.Dir, Base: BaseBranch, Head: head, Description: desc,
		Checks: func() []checks.Check { return []checks.Check{c} },
	})
	if err != nil {
		t.Fatalf("verify %s: %v", head, err)
	}
	for _, r := range rep.Results {
		if r.Check == c.Name() {
			return r
		}
	}
	t.Fatalf("verify %s: no %s result", head, c.Name())
	return checks.Result{}
}

// TestTaintExample runs the taint check on the good head (no change to the
// flags): it passes with no failure finding. The failing head and its near
// miss run in TestCheckCommentGoldens, which asserts their findings too.
func TestTaintExample(t *testing.T) {
	t.Parallel()
	res := runOne(t, heads(t), HeadGood, taint.New(), "")
	if res.Conclusion != checks.Success {
		t.Errorf("conclusion %s (%s: %s), want success", res.Conclusion, res.Title, res.Summary)
	}
	for _, f := range res.Findings {
		if f.Level == checks.LevelFailure {
			t.Errorf("failure finding on a passing head: %+v", f)
		}
	}
	for _, fg := range res.Figures {
		t.Logf("%s: %s", fg.Label, fg.Value)
	}
	if !sandbox.Available(context.Background()) {
		t.Log("bubblewrap is not usable: the tamper runs ran without a sandbox")
	}
}

// TestDescriptionExample runs the description check through verify.Run:
// a seed description passes with warnings, a mutated one with a banned
// word has a warning at its line, and no description is skipped.
func TestDescriptionExample(t *testing.T) {
	t.Parallel()
	b := example(t)
	seed, err := os.ReadFile("../checks/description/testdata/seeds/004_e73a9411de5f931a.md")
	if err != nil {
		t.Fatal(err)
	}
	res := runOne(t, b, HeadGood, description.New(), string(seed))
	if res.Conclusion != checks.Success || len(res.Findings) != 3 {
		t.Errorf("the FC_SKIP_PYTEST description: %s with %d findings, want success with 3 sentence-length warnings", res.Conclusion, len(res.Findings))
	}
	mutated := strings.Replace(string(seed), "## Purpose\n", "## Purpose\n\nA robust fix.\n", 1)
	res = runOne(t, b, HeadGood, description.New(), mutated)
	found := false
	for _, f := range res.Findings {
		found = found || strings.Contains(f.Title, "banned-word") && f.Level == checks.LevelWarning
	}
	if !found || res.Conclusion != checks.Success {
		t.Errorf("mutated seed: %s, findings %+v; want a banned-word warning", res.Conclusion, res.Findings)
	}
	res = runOne(t, b, HeadGood, description.New(), "")
	if res.Conclusion != checks.Skipped {
		t.Errorf("no description: %s, want skipped", res.Conclusion)
	}
}

// commitOn makes branch name from rev with edit applied to the work tree,
// and returns its sha.
func commitOn(t *testing.T, b *Built, name, from string, edit func(dir string)) string {
	t.Helper()
	ctx := context.Background()
	repo := gitx.Repo{Dir: b.Dir}
	if _, err := repo.Run(ctx, "checkout", "-q", "-b", name, from); err != nil {
		t.Fatal(err)
	}
	edit(b.Dir)
	if _, err := repo.Run(ctx, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Run(ctx, "commit", "-q", "--no-verify", "-m", name); err != nil {
		t.Fatal(err)
	}
	sha, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Run(ctx, "checkout", "-q", BaseBranch); err != nil {
		t.Fatal(err)
	}
	return sha
}

func editFile(t *testing.T, file string, f func(string) string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := f(string(data))
	if out == string(data) {
		t.Fatalf("the edit of %s changed nothing", file)
	}
	if err := os.WriteFile(file, []byte(out), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestTaintPolicy: a protected read the base has too is a warning (a
// failure with pre_existing: fail at the base); the head cannot unprotect
// a name the base protects; a head that stops before the first step makes
// the check not run, never pass.
func TestTaintPolicy(t *testing.T) {
	b := heads(t)
	script := func(dir string) string { return dir + "/" + testSh }
	cfgFile := func(dir string) string { return dir + "/.github/template-verify.yml" }
	comment := func(dir string) {
		editFile(t, script(dir), func(s string) string {
			return strings.Replace(s, "# ── Parse ──\n", "# ── Parse ──\n# The parser writes reward.json.\n", 1)
		})
	}
	commitOn(t, b, "taint-pre", headTaintFlags, comment)
	commitOn(t, b, "taint-pre-strict-base", headTaintFlags, func(dir string) {
		editFile(t, cfgFile(dir), func(s string) string { return strings.Replace(s, "pre_existing: warn", "pre_existing: fail", 1) })
	})
	commitOn(t, b, "taint-pre-strict", "taint-pre-strict-base", comment)
	commitOn(t, b, "taint-unprotect", b.Heads[headTaintFlags], func(dir string) {
		editFile(t, cfgFile(dir), func(s string) string { return s + "taint:\n  protect: [NOT_A_FLAG]\n" })
	})
	commitOn(t, b, "taint-stops", b.Base, func(dir string) {
		editFile(t, script(dir), func(s string) string {
			return strings.Replace(s, "unset _fc_profile\n", "unset _fc_profile\nexit 3\n", 1)
		})
	})
	tests := []struct {
		base, head string
		want       checks.Conclusion
		level      checks.Level // of the FC_SKIP_PYTEST finding; "" for none
	}{
		{headTaintFlags, "taint-pre", checks.Success, checks.LevelWarning},
		{"taint-pre-strict-base", "taint-pre-strict", checks.Failure, checks.LevelFailure},
		{BaseBranch, "taint-unprotect", checks.Failure, checks.LevelFailure},
		{BaseBranch, "taint-stops", checks.NotRun, ""},
	}
	for _, tc := range tests {
		t.Run(tc.head, func(t *testing.T) {
			t.Parallel()
			rep, err := verify.Run(context.Background(), verify.Options{RepoDir: b.Dir, Base: tc.base, Head: tc.head,
				Checks: func() []checks.Check { return []checks.Check{taint.New()} }})
			if err != nil {
				t.Fatal(err)
			}
			res := rep.Results[0]
			if res.Conclusion != tc.want {
				t.Errorf("conclusion %s (%s: %s), want %s", res.Conclusion, res.Title, res.Summary, tc.want)
			}
			var level checks.Level
			for _, f := range res.Findings {
				if strings.HasPrefix(f.Title, "FC_SKIP_PYTEST ") {
					level = f.Level
				}
			}
			if level != tc.level {
				t.Errorf("FC_SKIP_PYTEST finding level %q, want %q", level, tc.level)
			}
		})
	}
}

// TestTaintTamperSymlink: the script's head replaces the profile folder
// with a link to a folder outside its run. The tool must not delete the
// files there or write its hostile file through the link.
func TestTaintTamperSymlink(t *testing.T) {
	b := heads(t)
	victim := t.TempDir()
	keep := victim + "/keep.txt"
	if err := os.WriteFile(keep, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	commitOn(t, b, "taint-link", b.Base, func(dir string) {
		editFile(t, dir+"/"+testSh, func(s string) string {
			return strings.Replace(s, "unset _fc_profile\n", "unset _fc_profile\nrm -rf /etc/profile.d && ln -s "+victim+" /etc/profile.d\n", 1)
		})
	})
	res := runOne(t, b, "taint-link", taint.New(), "")
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the file outside the run is gone: %v", err)
	}
	entries, _ := os.ReadDir(victim)
	for _, e := range entries {
		if e.Name() != "keep.txt" {
			t.Errorf("the tool wrote %s through the link", e.Name())
		}
	}
	t.Logf("%s: %s", res.Conclusion, res.Title)
}

// TestTaintTamperHangs: a script head that never reaches the first step
// (it waits forever) is stopped at the run's time limit, once, and the
// check does not run rather than pass.
func TestTaintTamperHangs(t *testing.T) {
	old := taint.RunTimeout
	taint.RunTimeout = 2 * time.Second
	defer func() { taint.RunTimeout = old }()
	b := heads(t)
	commitOn(t, b, "taint-hangs", b.Base, func(dir string) {
		editFile(t, dir+"/"+testSh, func(s string) string {
			return strings.Replace(s, "unset _fc_profile\n", "unset _fc_profile\nwhile :; do sleep 1; done\n", 1)
		})
	})
	res := runOne(t, b, "taint-hangs", taint.New(), "")
	if res.Conclusion != checks.NotRun || !strings.Contains(res.Summary, "time limit") {
		t.Errorf("conclusion %s (%s), want not run at the time limit", res.Conclusion, res.Summary)
	}
}
