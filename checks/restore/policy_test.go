package restore

import (
	"slices"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

func TestPolicyChangeFinding(t *testing.T) {
	pol := func(ps ...string) revisionPolicy { return revisionPolicy{Patterns: ps, Origin: fromStep} }
	cases := []struct {
		name           string
		base, head     revisionPolicy
		added, removed []string
	}{
		{"same", pol("a", "b"), pol("b", "a"), nil, nil},
		{"added", pol("a"), pol("a", "b", "c"), []string{"b", "c"}, nil},
		{"removed", pol("a", "b"), pol("a"), nil, []string{"b"}},
		{"both", pol("a", "b"), pol("a", "c"), []string{"c"}, []string{"b"}},
		{"each once", pol(), pol("a", "a"), []string{"a"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := diffPatterns(c.base.Patterns, c.head.Patterns)
			if !slices.Equal(ch.Added, c.added) || !slices.Equal(ch.Removed, c.removed) {
				t.Errorf("added %q removed %q, want %q %q", ch.Added, ch.Removed, c.added, c.removed)
			}
			f, note := policyChangeFinding(c.base, c.head, "t/test.sh")
			if (f == nil) != ch.Empty() || (note == "") != ch.Empty() {
				t.Fatalf("finding %v note %q for change %+v", f, note, ch)
			}
			if f != nil && (f.Level != checks.LevelWarning || f.Path != "t/test.sh") {
				t.Errorf("finding %+v", f)
			}
		})
	}
	_, note := policyChangeFinding(pol("keep", `(^|/)tests?/`), pol("keep"), "t")
	if note != "The head changes the restore policy. Patterns added: none. Patterns removed: `(^|/)tests?/`." {
		t.Errorf("note %q", note)
	}
	// A pattern with a backtick stays one code span.
	if _, note := policyChangeFinding(pol(), pol("a`b"), "t"); note != "The head changes the restore policy. Patterns added: ``a`b``. Patterns removed: none." {
		t.Errorf("note %q", note)
	}
}
