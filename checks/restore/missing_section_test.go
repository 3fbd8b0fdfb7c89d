package restore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// TestMissingSectionAgainstBase: a script without the restore section is
// judged against the base. A section neither side has is not this
// change's fault (skipped under defaults, a warning "fails before this
// change" under a config that names it, a failure with pre_existing: fail);
// a section the base has and the head lost always fails.
func TestMissingSectionAgainstBase(t *testing.T) {
	t.Parallel()
	defaults := func(in *checks.Input) {
		in.Config.Restore.Explicit = false
		in.BaseConfig.Restore.Explicit = false
	}
	cases := []struct {
		name       string
		base, head string
		strict     bool // pre_existing: fail in the base config
		edit       func(in *checks.Input)
		want       checks.Conclusion
		title      string // a part of the title
		level      checks.Level
		msg        string // a part of the message of a finding at tpl/tests/test.sh
	}{
		{name: "defaults, no step at base or head", base: "no-step.sh", head: "no-step.sh", edit: defaults,
			want: checks.Skipped, title: "the script has no restore section at base or head, so there is nothing to run",
			level: checks.LevelWarning, msg: "tpl/tests/test.sh has no line that matches ^# ── Restore protected paths at base or head"},
		{name: "defaults, the head removes the step", base: "good.sh", head: "no-step.sh", edit: defaults,
			want: checks.Failure, title: "The restore step is not in the script",
			level: checks.LevelFailure, msg: "The base's script has it, so this change removes the restore step."},
		{name: "config names it, no section at base or head", base: "no-section.sh", head: "no-section.sh",
			want: checks.Skipped, title: "fails before this change",
			level: checks.LevelWarning, msg: "fails before this change"},
		{name: "config names it, no section at base or head, pre_existing: fail", base: "no-section.sh", head: "no-section.sh", strict: true,
			want: checks.Failure, title: "fails before this change",
			level: checks.LevelFailure, msg: "fails before this change"},
		{name: "config names it, the head removes the section", base: "good.sh", head: "no-section.sh",
			want: checks.Failure, title: "The restore step is not in the script",
			level: checks.LevelFailure, msg: "The base's script has it, so this change removes the restore step."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := readTestdata(t, "config.yml")
			baseCfg := cfg
			if c.strict {
				baseCfg = "pre_existing: fail\n" + cfg
			}
			v := makeVerified(t,
				map[string]string{config.Path: baseCfg, "tpl/tests/test.sh": script(t, c.base)},
				map[string]string{config.Path: cfg, "tpl/tests/test.sh": script(t, c.head)})
			in := inputFor(t, v)
			if c.edit != nil {
				c.edit(in)
			}
			res := New().Run(context.Background(), in)
			if res.Conclusion != c.want {
				logFindings(t, res)
				t.Fatalf("conclusion %s, want %s (%s)", res.Conclusion, c.want, res.Title)
			}
			if !strings.Contains(res.Title, c.title) {
				t.Errorf("title %q\nwant a title with %q", res.Title, c.title)
			}
			if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
				return f.Level == c.level && f.Path == "tpl/tests/test.sh" && strings.Contains(f.Message, c.msg)
			}) {
				logFindings(t, res)
				t.Errorf("no %s finding at tpl/tests/test.sh with %q", c.level, c.msg)
			}
			if len(res.Tables) != 0 {
				t.Errorf("scenarios ran: %+v", res.Tables)
			}
		})
	}
}

// Under defaults, a step under another header is still the step: the
// check finds it (the grep over git's changed paths) and runs it.
func TestRenamedSectionIsFoundUnderDefaults(t *testing.T) {
	t.Parallel()
	cfg := readTestdata(t, "config.yml")
	v := makeVerified(t,
		map[string]string{config.Path: cfg, "tpl/tests/test.sh": script(t, "good.sh")},
		map[string]string{config.Path: cfg, "tpl/tests/test.sh": script(t, "no-section.sh")})
	in := inputFor(t, v)
	in.Config.Restore.Explicit, in.BaseConfig.Restore.Explicit = false, false
	in.Config.Restore.Random.Count = 0
	res := New().WithOptions(Options{Catalogue: scenarios(t, "no-change", "edit-test-file", "add-benchmark-with-space")}).Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "The step is the part of harbor:tests/test.sh under `# ── Put back protected paths ──`")
	}) {
		t.Errorf("no note names the header the step was found under: %q", res.Notes)
	}
}
