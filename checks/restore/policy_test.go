package restore

import (
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

func TestComparePolicy(t *testing.T) {
	withPatterns := func(ps ...string) *config.Config {
		return &config.Config{Source: config.Path, Restore: &config.Restore{Patterns: ps}}
	}
	cases := []struct {
		name           string
		base, head     *config.Config
		added, removed []string
	}{
		{"same", withPatterns("a", "b"), withPatterns("b", "a"), nil, nil},
		{"added", withPatterns("a"), withPatterns("a", "b", "c"), []string{"b", "c"}, nil},
		{"removed", withPatterns("a", "b"), withPatterns("a"), nil, []string{"b"}},
		{"both", withPatterns("a", "b"), withPatterns("a", "c"), []string{"c"}, []string{"b"}},
		{"restore turned off", withPatterns("a"), &config.Config{Source: config.Path}, nil, []string{"a"}},
		{"restore turned on", &config.Config{Source: config.Path}, withPatterns("a", "a"), []string{"a"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := ComparePolicy(c.base, c.head)
			if !slices.Equal(ch.Added, c.added) || !slices.Equal(ch.Removed, c.removed) {
				t.Errorf("added %q removed %q, want %q %q", ch.Added, ch.Removed, c.added, c.removed)
			}
			f, note := policyFinding(&checks.Input{Config: c.head, BaseConfig: c.base})
			if (f == nil) != ch.Empty() || (note == "") != ch.Empty() {
				t.Fatalf("finding %v note %q for change %+v", f, note, ch)
			}
			if f != nil && (f.Level != checks.LevelWarning || f.Path != config.Path) {
				t.Errorf("finding %+v", f)
			}
		})
	}
	// Without a base config there is nothing to compare.
	if f, _ := policyFinding(&checks.Input{Config: withPatterns("a")}); f != nil {
		t.Errorf("finding without a base config: %+v", f)
	}
	f, note := policyFinding(&checks.Input{Config: withPatterns("keep"), BaseConfig: withPatterns("keep", `(^|/)tests?/`)})
	if !strings.Contains(f.Message, "adds 0 and removes 1") || note != "The head changes the restore policy. Patterns added: none. Patterns removed: `(^|/)tests?/`." {
		t.Errorf("message %q note %q", f.Message, note)
	}
	// A pattern with a backtick stays one code span.
	if _, note := policyFinding(&checks.Input{Config: withPatterns("a`b"), BaseConfig: withPatterns()}); note != "The head changes the restore policy. Patterns added: ``a`b``. Patterns removed: none." {
		t.Errorf("note %q", note)
	}
}
