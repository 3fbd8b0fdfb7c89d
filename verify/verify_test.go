package verify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

type stubCheck struct{ name string }

func (s stubCheck) Name() string { return s.name }
func (s stubCheck) Run(context.Context, *checks.Input) checks.Result {
	return checks.Result{Check: s.name, Conclusion: checks.Success, Title: "ok"}
}

func stubChecks() []checks.Check { return []checks.Check{stubCheck{"render"}, stubCheck{"restore"}} }

const cfgA = "version: 1\ngroups:\n  - {name: t, root: tpl, templates: [{path: '**'}]}\n"

func repoWith(t *testing.T, baseCfg, headCfg string) *gittest.Repo {
	r := gittest.New(t)
	r.Write(map[string]string{".github/template-verify.yml": baseCfg, "tpl/a.sh": "a\n"})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(map[string]string{".github/template-verify.yml": headCfg, "tpl/a.sh": "b\n"})
	r.Commit("head")
	return r
}

func conclusions(results []checks.Result) map[string]checks.Conclusion {
	m := map[string]checks.Conclusion{}
	for _, r := range results {
		m[r.Check] = r.Conclusion
	}
	return m
}

func TestDisablingACheckInThePRIsNotRun(t *testing.T) {
	t.Parallel()
	r := repoWith(t, cfgA, cfgA+"checks: {disable: [render]}\n")
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	if got := conclusions(rep.Results)["render"]; got != checks.NotRun {
		t.Fatalf("restore = %s, want not_run when the PR turns it off", got)
	}
	if rep.Overall != checks.NotRun {
		t.Errorf("overall %s", rep.Overall)
	}
}

func TestDisabledAtBaseAndHeadIsSkipped(t *testing.T) {
	t.Parallel()
	c := cfgA + "checks: {disable: [restore]}\n"
	r := repoWith(t, c, c)
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	if got := conclusions(rep.Results); got["restore"] != checks.Skipped || got["render"] != checks.Success {
		t.Fatalf("conclusions %v", got)
	}
	if rep.Overall != checks.Success {
		t.Errorf("overall %s", rep.Overall)
	}
}

func TestOnlySkipsTheOthers(t *testing.T) {
	t.Parallel()
	r := repoWith(t, cfgA, cfgA)
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks, Only: []string{"render"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := conclusions(rep.Results); got["restore"] != checks.Skipped {
		t.Fatalf("conclusions %v", got)
	}
}

func TestBrokenBaseConfigIsANote(t *testing.T) {
	t.Parallel()
	r := repoWith(t, "version: [\n", cfgA)
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "base configuration does not decode") {
		t.Errorf("notes %v", rep.Notes)
	}
}

func TestBrokenHeadConfigIsAUsageError(t *testing.T) {
	t.Parallel()
	r := repoWith(t, cfgA, cfgA+"unknown_key: 1\n")
	_, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), ".github/template-verify.yml:4") {
		t.Fatalf("err %v", err)
	}
}

func TestNothingToVerify(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{".github/template-verify.yml": cfgA, "tpl/a.sh": "a\n", "README": "1\n"})
	r.Commit("base")
	r.Write(map[string]string{"README": "2\n"})
	r.Commit("docs")
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "HEAD~1", Head: "HEAD", Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall != checks.Success || len(rep.Results) != 0 || !strings.Contains(strings.Join(rep.Notes, " "), "nothing to verify") {
		t.Fatalf("overall %s results %d notes %v", rep.Overall, len(rep.Results), rep.Notes)
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"main": "main", "origin/main~1": "origin/main~1", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNullBlockInThePRIsNotRun(t *testing.T) {
	t.Parallel()
	r := repoWith(t, cfgA, cfgA+"restore: null\n")
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	// cfgA replaces the groups; the default restore block it keeps names
	// the datasmith template, which the base does not have: the base ran
	// no restore check, so the PR's null block is skipped.
	if got := conclusions(rep.Results)["restore"]; got != checks.Skipped {
		t.Fatalf("restore = %s, want skipped when neither side has a restore block", got)
	}
	withRestore := "version: 1\ngroups:\n  - {name: harbor, root: tpl, templates: [{path: '**'}]}\n"
	r = repoWith(t, withRestore, withRestore+"restore: null\n")
	rep, err = Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	if got := conclusions(rep.Results)["restore"]; got != checks.NotRun {
		t.Fatalf("restore = %s, want not_run when the PR removes the restore block", got)
	}
}
