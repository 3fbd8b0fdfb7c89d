package taint

import (
	"slices"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestCutHead: the tamper run executes the script up to the first step
// line after its first source of an agent-writable file; a step line
// before the source, or no step line, leaves nothing to run.
func TestCutHead(t *testing.T) {
	t.Parallel()
	st := settingsOf(config.Default(), config.Default())
	tests := []struct {
		name, script string
		head, rest   string
		ok           bool
	}{
		{"the first step after the source", "set -e\n" + src + "X=1\n# ── Restore tests\nrun\n# ── Pytest\npytest\n",
			"set -e\n" + src + "X=1\n", "# ── Restore tests\nrun\n# ── Pytest\npytest\n", true},
		{"a step before the source does not cut", "# ── Timing\n" + src + "echo\n# ── Pytest\npytest\n",
			"# ── Timing\n" + src + "echo\n", "# ── Pytest\npytest\n", true},
		{"a step line that does not start the line", src + "echo '# ── Pytest'\n", "", "", false},
		{"no step after the source", src + "pytest\n", "", "", false},
		{"the step right after the source", src + "# ── Capture patch\ngit diff\n", src, "# ── Capture patch\ngit diff\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			an, err := Analyze(tc.script, st.writable)
			if err != nil {
				t.Fatal(err)
			}
			if len(an.Sources) == 0 {
				t.Fatal("no source found")
			}
			head, rest, ok := cutHead(&script{text: tc.script, an: an}, st)
			if ok != tc.ok || head != tc.head || rest != tc.rest {
				t.Errorf("cutHead = %q, %q, %v; want %q, %q, %v", head, rest, ok, tc.head, tc.rest, tc.ok)
			}
		})
	}
}

// TestRestReads: the names the rest of a script reads before it assigns
// them on every path are the ones a value left by the head can change.
// A rest that does not parse alone probes every name of the script.
func TestRestReads(t *testing.T) {
	t.Parallel()
	all := []string{"A", "B", "FC_SKIP_PYTEST"}
	tests := []struct {
		name, rest string
		want       []string
	}{
		{"a read", "if [ \"$FC_SKIP_PYTEST\" = 1 ]; then exit 0; fi\n", []string{"FC_SKIP_PYTEST"}},
		{"assigned first", "FC_SKIP_PYTEST=0\necho \"$FC_SKIP_PYTEST\"\n", nil},
		{"assigned on one path", "if true; then A=1; fi\necho \"$A\"\n", []string{"A"}},
		{"a program looked up reads PATH", "python3 x.py\n", []string{"PATH"}},
		{"a copy carries the name it was made from", "B=\"$A\"\necho \"$B\"\n", []string{"A"}},
		{"a function the rest calls", "f() { echo \"$A\"; }\nf\n", []string{"A"}},
		{"a function the rest never calls", "f() { echo \"$A\"; }\n", nil},
		{"a rest cut inside a block does not parse", "  fi\necho \"$A\"\n", all},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := restReads(tc.rest, all); !slices.Equal(got, tc.want) {
				t.Errorf("restReads = %q, want %q", got, tc.want)
			}
		})
	}
}
