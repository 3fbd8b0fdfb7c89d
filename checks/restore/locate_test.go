package restore

import (
	"strings"
	"testing"
)

// TestSectionAroundFindsAStepByWhatItDoes: a step with no grep list (a
// case of globs over a -z loop, git status --porcelain) is found by what
// it does: it lists changed paths through git and puts paths back. A
// script that only lists changed paths (the patch capture) is no step.
func TestSectionAroundFindsAStepByWhatItDoes(t *testing.T) {
	t.Parallel()
	caseStep := shapeBash(styleCase, bugNone, cosmeticOf(1))
	statusStep := shapeBash(styleStatus, bugNone, cosmeticOf(2))
	cases := []struct {
		name, script string
		want         string // the section start; "" for none
	}{
		{"case globs", "#!/bin/bash\n# ── Capture ──\ngit diff > /logs/patch.diff\n# ── Put back guarded files ──\n" + caseStep + "# ── Tests ──\npytest\n", `^# ── Put back guarded files ──$`},
		{"status porcelain", "#!/bin/bash\n## Reset\n" + statusStep + "## Run\npytest\n", `^## Reset$`},
		{"lists only", "#!/bin/bash\n# ── Capture ──\ngit diff > /logs/patch.diff\ngit status --porcelain > /logs/status\n# ── Tests ──\npytest\n", ""},
		{"puts back only", "#!/bin/bash\n# ── Reset ──\ngit checkout -- tests\n# ── Tests ──\npytest\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sec, ok := sectionAround(c.script)
			switch {
			case c.want == "" && ok:
				t.Errorf("found a step under %q in a script that does not restore", sec.Start)
			case c.want != "" && !ok:
				t.Errorf("no step found; want the section %q", c.want)
			case c.want != "" && strings.ReplaceAll(sec.Start, `\`, "") != strings.ReplaceAll(c.want, `\`, ""):
				t.Errorf("section start %q, want %q", sec.Start, c.want)
			}
		})
	}
}
