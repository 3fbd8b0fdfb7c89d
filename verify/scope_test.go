package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/internal/loadclock"
)

// resolveCheck fails unless every planned template resolves to a template
// entry of a group in the configuration the checks get, as the render
// check needs it.
type resolveCheck struct{}

func (resolveCheck) Name() string { return "render" }
func (resolveCheck) Run(_ context.Context, in *checks.Input) checks.Result {
	for _, t := range in.Plan.Templates {
		g, ok := in.Config.Group(t.Group)
		if !ok || len(g.TemplateFor(t.Rel)) == 0 && len(g.TemplateFor(t.OldRel)) == 0 {
			return checks.Result{Check: "render", Conclusion: checks.Failure, Title: "unresolved " + t.Path + " in group " + t.Group}
		}
	}
	return checks.Result{Check: "render", Conclusion: checks.Success, Title: fmt.Sprintf("%d templates", len(in.Plan.Templates))}
}

func resolveChecks() []checks.Check { return []checks.Check{resolveCheck{}} }

func TestHeadConfigCannotHideATemplateChange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, head string
		moved      string // a word the scope finding must name; "" when the scope does not change
	}{
		{"root moved", "version: 1\ngroups:\n  - {name: t, root: other, templates: [{path: '**'}]}\n", "root"},
		{"exclude added", "version: 1\ngroups:\n  - {name: t, root: tpl, exclude: [a.sh], templates: [{path: '**'}]}\n", "exclude"},
		{"templates narrowed", "version: 1\ngroups:\n  - {name: t, root: tpl, templates: [{path: '*.py'}]}\n", "templates"},
		{"group renamed and moved", "version: 1\ngroups:\n  - {name: u, root: other, templates: [{path: '**'}]}\n", "removed"},
		// A head that lists the template under copy: (never rendered) does
		// not take it out: the base still selects it.
		{"copy everything", "version: 1\ngroups:\n  - {name: t, root: tpl, copy: ['**'], templates: [{path: '**'}]}\n", "copy"},
		{"copy the one file", "version: 1\ngroups:\n  - {name: t, root: tpl, copy: [a.sh], templates: [{path: '**'}]}\n", "copy"},
		{"back to the default groups", "version: 1\n", "removed"},
		{"same config", cfgA, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := repoWith(t, cfgA, tc.head)
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: resolveChecks})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, tm := range rep.Templates {
				paths = append(paths, tm.Path)
			}
			if !slices.Contains(paths, "tpl/a.sh") || len(rep.Results) != 1 || rep.Results[0].Conclusion != checks.Success {
				t.Fatalf("templates %v results %+v notes %v: the changed template must be verified", paths, rep.Results, rep.Notes)
			}
			notes := strings.Join(rep.Notes, "\n")
			var finding *checks.Finding
			for i, f := range rep.Results[0].Findings {
				if f.Title == ScopeTitle {
					finding = &rep.Results[0].Findings[i]
				}
			}
			if tc.moved == "" {
				if finding != nil || strings.Contains(notes, "changes what is verified") {
					t.Fatalf("a scope finding for an unchanged config: %+v %q", finding, notes)
				}
				return
			}
			if finding == nil || !strings.Contains(finding.Message+finding.Details, tc.moved) || !strings.HasPrefix(notes, "The PR changes what is verified") {
				t.Fatalf("finding %+v notes %q: want the scope change, naming %q, first in the notes", finding, notes, tc.moved)
			}
		})
	}
}

// deadlineCheck reports the time limit its context carries.
type deadlineCheck struct{ got *time.Duration }

func (deadlineCheck) Name() string { return "render" }
func (d deadlineCheck) Run(ctx context.Context, _ *checks.Input) checks.Result {
	if limit, ok := loadclock.Limit(ctx); ok {
		*d.got = limit
	} else {
		*d.got = -1
	}
	return checks.Result{Check: "render", Conclusion: checks.Success}
}

func TestHeadCannotLiftTheTimeLimit(t *testing.T) {
	t.Parallel()
	base := cfgA + "checks: {timeouts: {render: 30s}}\n"
	for _, tc := range []struct{ name, head string }{
		{"zero", cfgA + "checks: {timeouts: {render: 0s}}\n"},
		{"huge", cfgA + "checks: {timeouts: {render: 100000h}}\n"},
		{"above the base", cfgA + "checks: {timeouts: {render: 31s}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := repoWith(t, base, tc.head)
			var got time.Duration
			_, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr",
				Checks: func() []checks.Check { return []checks.Check{deadlineCheck{&got}} }})
			if err != nil {
				t.Fatal(err)
			}
			if got <= 0 || got > 30*time.Second {
				t.Fatalf("the check ran with a limit of %v (-1: none), want at most the base's 30s", got)
			}
		})
	}
}

func TestLimitOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		head, base, want time.Duration
	}{
		{0, 30 * time.Second, 30 * time.Second},
		{time.Second, 30 * time.Second, MinCheckTimeout},
		{20 * time.Second, 30 * time.Second, 20 * time.Second},
		{time.Hour, 30 * time.Second, 30 * time.Second},
		{0, 0, MaxCheckTimeout},
		{1000 * time.Hour, 1000 * time.Hour, MaxCheckTimeout},
	} {
		if got := limitOf(tc.head, tc.base); got != tc.want {
			t.Errorf("limitOf(head %v, base %v) = %v, want %v", tc.head, tc.base, got, tc.want)
		}
	}
}

func TestFirstConfigFileIsVerifiedWithTheHeadsConfig(t *testing.T) {
	t.Parallel()
	const restoreTemplate = "src/datasmith/harbor_adapter/template/tests/test.sh"
	for _, tc := range []struct {
		name  string
		base  map[string]string
		head  string
		check string
		want  checks.Conclusion
	}{
		// The defaults name a restore template this repository does not
		// have: the base ran no restore check, so the head's config
		// decides. Its own groups keep the default restore block, so the
		// check runs and looks for the step there (the stub passes).
		{"no default layout", map[string]string{"tpl/a.sh": "a\n"}, cfgA, "restore", checks.Success},
		// The defaults applied at the base: turning restore off is not run.
		{"default layout", map[string]string{"tpl/a.sh": "a\n", restoreTemplate: "echo\n"}, cfgA + "checks: {disable: [restore]}\n", "restore", checks.NotRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write(tc.base)
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "pr")
			r.Write(map[string]string{".github/template-verify.yml": tc.head, "tpl/a.sh": "b\n"})
			r.Commit("head")
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: stubChecks})
			if err != nil {
				t.Fatal(err)
			}
			if got := conclusions(rep.Results)[tc.check]; got != tc.want {
				t.Fatalf("%s = %s, want %s (%v)", tc.check, got, tc.want, rep.Results)
			}
		})
	}
}

func TestMissingConfigFileIsAUsageError(t *testing.T) {
	t.Parallel()
	r := repoWith(t, cfgA, cfgA)
	_, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", ConfigPath: "ci/missing.yml", Checks: stubChecks})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "ci/missing.yml") {
		t.Fatalf("err %v, want a usage error naming the file", err)
	}
}

func TestReproduceCommandKeepsOnlyAndConfig(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{"ci/tv.yml": cfgA, "tpl/a.sh": "a\n"})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(map[string]string{"tpl/a.sh": "b\n"})
	r.Commit("head")
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", ConfigPath: "ci/tv.yml", Only: []string{"render"}, Checks: stubChecks})
	if err != nil {
		t.Fatal(err)
	}
	want := "template-verify run --repo . --base main --head pr --config ci/tv.yml --only render"
	if rep.Command != want {
		t.Fatalf("command %q, want %q", rep.Command, want)
	}
}

func TestGatePolicyIsReadAtTheBase(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{"README": "1\n"})
	none := r.Commit("no config")
	r.Write(map[string]string{".github/template-verify.yml": "version: 1\ngate: {branches: [develop]}\n"})
	base := r.Commit("base")
	r.Write(map[string]string{".github/template-verify.yml": "version: [\n"})
	broken := r.Commit("broken")
	for _, tc := range []struct {
		name, rev string
		want      []string
		err       bool
		// gated are the branches whose pull requests the gate decides.
		gated, free []string
	}{
		{"config file", base, []string{"develop"}, false, []string{"develop", "refs/heads/develop"}, []string{"main", "release/x"}},
		{"no config file", none, []string{"release/*", "main"}, false, []string{"main", "release/x"}, []string{"develop"}},
		{"broken config file", broken, nil, true, []string{"main", "develop", "feature"}, nil},
		{"unknown commit", strings.Repeat("0", 40), nil, true, []string{"main", "develop"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pol := GatePolicy(context.Background(), r.Dir(), tc.rev, "")
			if (pol.Err != nil) != tc.err || !slices.Equal(pol.Branches, tc.want) {
				t.Fatalf("policy %+v, want branches %v, error %v", pol, tc.want, tc.err)
			}
			// Policy.Gate is the one gate input of the Action and the App.
			for _, b := range tc.gated {
				if g := pol.Gate(b); !g.Applies() || g.PolicyErr != pol.Err {
					t.Errorf("the gate of a pull request into %s does not apply (%+v)", b, g)
				}
			}
			for _, b := range tc.free {
				if g := pol.Gate(b); g.Applies() {
					t.Errorf("the gate of a pull request into %s applies (%+v)", b, g)
				}
			}
		})
	}
}

// configCheck keeps the configuration the checks get.
type configCheck struct{ got **config.Config }

func (configCheck) Name() string { return "render" }
func (c configCheck) Run(_ context.Context, in *checks.Input) checks.Result {
	*c.got = in.Config
	return checks.Result{Check: "render", Conclusion: checks.Success}
}

func TestHeadCannotRelaxWhatDecidesTheGate(t *testing.T) {
	t.Parallel()
	base := cfgA + "pre_existing: fail\nlimits: {templates: 10, render_output: 1000}\n"
	head := cfgA + "pre_existing: warn\nlimits: {templates: 2000, render_output: 500}\n"
	r := repoWith(t, base, head)
	var got *config.Config
	if _, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr",
		Checks: func() []checks.Check { return []checks.Check{configCheck{&got}} }}); err != nil {
		t.Fatal(err)
	}
	lim := got.Limits.Effective()
	if got.PreExisting != config.PreExistingFail || lim.Templates != 10 || lim.RenderOutput != 500 {
		t.Fatalf("pre_existing %q, limits %+v: want the base's pre_existing and the tighter of each limit", got.PreExisting, lim)
	}
}

func TestHeadCannotNarrowTheMatrix(t *testing.T) {
	t.Parallel()
	base := "version: 1\ngroups:\n  - {name: t, root: tpl, matrix: {x: [1, 2]}, templates: [{path: '**', matrix: {y: [a, b]}}]}\n"
	for _, tc := range []struct{ name, head string }{
		{"values dropped", "version: 1\ngroups:\n  - {name: t, root: tpl, matrix: {x: [1]}, templates: [{path: '**', matrix: {y: [a]}}]}\n"},
		{"matrix turned into a variable", "version: 1\ngroups:\n  - {name: t, root: tpl, vars: {x: 1}, templates: [{path: '**', vars: {y: a}}]}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := repoWith(t, base, tc.head)
			var got *config.Config
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr",
				Checks: func() []checks.Check { return []checks.Check{configCheck{&got}} }})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := got.Group("t")
			var names []string
			for _, s := range g.VarSets(g.TemplateFor("a.sh")[0]) {
				names = append(names, s.Name)
			}
			if want := []string{"x=1,y=a", "x=1,y=b", "x=2,y=a", "x=2,y=b"}; !slices.Equal(names, want) {
				t.Errorf("variable sets %v, want %v", names, want)
			}
			if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "matrix `x` drops `2`") || !strings.Contains(notes, "matrix `y` drops `b`") {
				t.Errorf("notes %q: want the dropped values named", notes)
			}
		})
	}
}

func TestHeadCannotDropAPytestSuite(t *testing.T) {
	t.Parallel()
	base := cfgA + "pytest: {suites: [{name: s, files: [tests/t.py], triggers: ['tpl/**']}]}\n"
	for _, tc := range []struct {
		name, head, dropped string
		keepsFile           bool
	}{
		{"suite removed", cfgA + "pytest: {suites: [{name: other, files: [tests/o.py], triggers: ['x/**']}]}\n", "suite `s` is dropped", true},
		{"trigger narrowed", cfgA + "pytest: {suites: [{name: s, files: [tests/t.py], triggers: ['nothing/**']}]}\n", "triggers drops `tpl/**`", true},
		{"file removed", cfgA + "pytest: {suites: [{name: s, files: [tests/u.py], triggers: ['tpl/**']}]}\n", "files drops `tests/t.py`", true},
		// A test file the PR deletes is not run: the diff shows it.
		{"file deleted", cfgA + "pytest: {suites: [{name: s, files: [tests/u.py], triggers: ['tpl/**']}]}\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write(map[string]string{".github/template-verify.yml": base, "tpl/a.sh": "a\n", "tests/t.py": "def test(): pass\n"})
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "pr")
			r.Write(map[string]string{".github/template-verify.yml": tc.head, "tpl/a.sh": "b\n"})
			if !tc.keepsFile {
				r.Git("rm", "-q", "tests/t.py")
			}
			r.Commit("head")
			var got *config.Config
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr",
				Checks: func() []checks.Check { return []checks.Check{configCheck{&got}} }})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(got.Pytest.Suites, func(s config.Suite) bool { return s.Name == "s" })
			if i < 0 || !slices.Contains(got.Pytest.Suites[i].Triggers, "tpl/**") || slices.Contains(got.Pytest.Suites[i].Files, "tests/t.py") != tc.keepsFile {
				t.Fatalf("suites %+v: want the base's suite s with its trigger, and its file %v", got.Pytest.Suites, tc.keepsFile)
			}
			if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, tc.dropped) {
				t.Errorf("notes %q: want %q", notes, tc.dropped)
			}
		})
	}
}

func TestHeadCannotPointRestoreElsewhere(t *testing.T) {
	t.Parallel()
	const restore = "restore: {template: '%s', section: {start: '^# start', end: '^# end'}, paths: {repo: /r, baseline_sha: /b, logs: /l}, report: /l/r.json, patterns: ['x']}\n"
	r := gittest.New(t)
	r.Write(map[string]string{".github/template-verify.yml": cfgA + fmt.Sprintf(restore, "t:a.sh"), "tpl/a.sh": "a\n"})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(map[string]string{".github/template-verify.yml": cfgA + fmt.Sprintf(restore, "t:copy.sh"), "tpl/a.sh": "b\n", "tpl/copy.sh": "a\n"})
	r.Commit("head")
	var got *config.Config
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr",
		Checks: func() []checks.Check { return []checks.Check{configCheck{&got}} }})
	if err != nil {
		t.Fatal(err)
	}
	g, rel, err := got.ResolveTemplate(got.Restore.Template)
	if err != nil || g.Root+"/"+rel != "tpl/a.sh" {
		t.Fatalf("restore template %q (%v): want the base's tpl/a.sh, which is still at head", got.Restore.Template, err)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "restore: template `t:a.sh` changes to `t:copy.sh`") {
		t.Errorf("notes %q", notes)
	}
}

func TestHeadCannotRelaxTheRefusalExit(t *testing.T) {
	t.Parallel()
	const restore = "restore: {template: 't:a.sh', section: {start: '^# start', end: '^# end'}, paths: {repo: /r, baseline_sha: /b, logs: /l}, report: /l/r.json, patterns: ['x']%s}\n"
	for _, tc := range []struct{ name, base, head, want string }{
		{"head relaxes", ", refusal_exit: zero", ", refusal_exit: any", "zero"},
		{"head leaves it out", ", refusal_exit: nonzero", "", "nonzero"},
		{"head tightens", "", ", refusal_exit: zero", "zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := repoWith(t, cfgA+fmt.Sprintf(restore, tc.base), cfgA+fmt.Sprintf(restore, tc.head))
			var got *config.Config
			if _, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr",
				Checks: func() []checks.Check { return []checks.Check{configCheck{&got}} }}); err != nil {
				t.Fatal(err)
			}
			if rule := got.Restore.RefusalExitRule(); rule != tc.want {
				t.Fatalf("refusal_exit %q, want %q", rule, tc.want)
			}
		})
	}
}
