package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

// strictCfg is a base configuration whose group passes no variables:
// production renders setup.sh without base_commit.
const strictCfg = "version: 1\ngroups:\n  - {name: t, root: tpl, jinja: {strict_undefined: true}, templates: [{path: '**'}]}\n"

// TestHeadVarsCannotHideAnUndefinedVariable: a head configuration that adds
// a variable (to a group or a template entry) renders the head's template
// with the base's variable sets too, so a variable production does not
// pass is a failure; the scope finding names the group, the template and
// the keys. A head that changes only the template behaves as before.
func TestHeadVarsCannotHideAnUndefinedVariable(t *testing.T) {
	t.Parallel()
	render := func() []checks.Check { return []checks.Check{render.New()} }
	cases := []struct {
		name, head, script string
		want               checks.Conclusion
		scope              []string // words the scope finding names; nil: no scope finding
		failure            string   // words a failure finding's title or message names
	}{
		{
			name:    "template vars add base_commit",
			head:    "version: 1\ngroups:\n  - {name: t, root: tpl, jinja: {strict_undefined: true}, templates: [{path: setup.sh, vars: {base_commit: abc}}, {path: '**'}]}\n",
			script:  "echo {{ base_commit }}\n",
			want:    checks.Failure,
			scope:   []string{"group `t`", "template `setup.sh`", "vars adds `base_commit`"},
			failure: "fails with the variables the base config passes; the PR adds `base_commit` to the config",
		},
		{
			name:    "group vars add base_commit",
			head:    "version: 1\ngroups:\n  - {name: t, root: tpl, jinja: {strict_undefined: true}, vars: {base_commit: abc}, templates: [{path: '**'}]}\n",
			script:  "echo {{ base_commit }}\n",
			want:    checks.Failure,
			scope:   []string{"group `t`", "vars adds `base_commit`"},
			failure: "the PR adds `base_commit` to the config",
		},
		{
			name:    "group matrix adds base_commit",
			head:    "version: 1\ngroups:\n  - {name: t, root: tpl, jinja: {strict_undefined: true}, matrix: {base_commit: [abc, def]}, templates: [{path: '**'}]}\n",
			script:  "echo {{ base_commit }}\n",
			want:    checks.Failure,
			scope:   []string{"group `t`", "matrix adds `base_commit`"},
			failure: "the PR adds `base_commit` to the config",
		},
		{
			name:    "head turns strict_undefined off",
			head:    "version: 1\ngroups:\n  - {name: t, root: tpl, jinja: {strict_undefined: false}, templates: [{path: '**'}]}\n",
			script:  "echo {{ base_commit }}\n",
			want:    checks.Failure,
			scope:   []string{"group `t`: jinja strict_undefined"},
			failure: "Render error at head",
		},
		{
			name:   "vars added, template does not use them",
			head:   "version: 1\ngroups:\n  - {name: t, root: tpl, jinja: {strict_undefined: true}, templates: [{path: setup.sh, vars: {base_commit: abc}}, {path: '**'}]}\n",
			script: "echo bye\n",
			want:   checks.Success,
			scope:  []string{"template `setup.sh`", "vars adds `base_commit`"},
		},
		{
			name:   "template changes, config does not",
			head:   strictCfg,
			script: "echo bye\n",
			want:   checks.Success,
		},
		{
			name:    "template uses an undefined variable, config does not change",
			head:    strictCfg,
			script:  "echo {{ base_commit }}\n",
			want:    checks.Failure,
			failure: "Render error at head",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write(map[string]string{".github/template-verify.yml": strictCfg, "tpl/setup.sh": "echo hi\n"})
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "pr")
			r.Write(map[string]string{".github/template-verify.yml": tc.head, "tpl/setup.sh": tc.script})
			r.Commit("head")
			rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: "pr", Checks: render})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 1 {
				t.Fatalf("results %+v", rep.Results)
			}
			res := rep.Results[0]
			var all []string
			var scope, failure string
			for _, f := range res.Findings {
				all = append(all, string(f.Level)+": "+f.Title+": "+f.Message)
				if f.Title == ScopeTitle {
					scope = f.Message + f.Details
				} else if f.Level == checks.LevelFailure {
					failure += f.Title + ": " + f.Message + "\n"
				}
			}
			if res.Conclusion != tc.want {
				t.Fatalf("render = %s, want %s; findings:\n%s", res.Conclusion, tc.want, strings.Join(all, "\n"))
			}
			t.Logf("failures: %s", failure)
			if tc.failure != "" && !strings.Contains(failure, tc.failure) {
				t.Errorf("no failure finding says %q; findings:\n%s", tc.failure, strings.Join(all, "\n"))
			}
			if tc.scope == nil && scope != "" {
				t.Errorf("a scope finding for a config whose variables do not change: %s", scope)
			}
			for _, w := range tc.scope {
				if !strings.Contains(scope, w) {
					t.Errorf("the scope finding does not name %q: %q", w, scope)
				}
			}
		})
	}
}

// TestVarsChanges: the scope lists every key the head adds, changes or
// drops in a group's or a template entry's vars, and every matrix key or
// value it adds.
func TestVarsChanges(t *testing.T) {
	t.Parallel()
	base := config.Group{Name: "g", Vars: map[string]any{"a": 1, "b": 2}, Matrix: map[string][]any{"m": {1}},
		Templates: []config.Template{{Path: "x.sh", Vars: map[string]any{"c": "x"}}}}
	head := config.Group{Name: "g", Vars: map[string]any{"a": 1, "b": 3, "n": true}, Matrix: map[string][]any{"m": {1, 2}, "k": {"v"}},
		Templates: []config.Template{{Path: "x.sh"}, {Path: "y.sh", Matrix: map[string][]any{"base_commit": {"abc"}}}}}
	want := []string{
		"group `g`: vars changes `b`",
		"group `g`: vars adds `n`",
		"group `g`: matrix adds `k`",
		"group `g`: matrix: `m` adds `2`",
		"group `g`, template `x.sh`: vars drops `c`",
		"group `g`, template `y.sh`: matrix adds `base_commit`",
	}
	if diff := cmp.Diff(want, varsChanges(&base, &head)); diff != "" {
		t.Errorf("varsChanges (-want +got):\n%s", diff)
	}
	if got := varsChanges(&base, &base); len(got) != 0 {
		t.Errorf("an unchanged group lists %q", got)
	}
}
