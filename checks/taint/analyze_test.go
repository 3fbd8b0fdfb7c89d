package taint

import (
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/shparse"
)

func uses(t *testing.T, script string) []string {
	t.Helper()
	a, err := Analyze(script, narrowed)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range a.Uses {
		out = append(out, u.Kind[:1]+":"+u.Name)
	}
	return out
}

const profileLoop = `for f in /etc/profile.d/*.sh; do
  if [ -r "$f" ]; then . "$f"; fi
done
`

// TestAnalyze lists what a source of an agent-writable file taints.
func TestAnalyze(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   []string // kind:name that must be listed
		not    []string // kind:name that must not be
	}{
		{"flags read before the source into readonly copies", `set -eu
if [ "${FC_SKIP_PYTEST-}" = 1 ]; then s=1; else s=0; fi
readonly s
unset FC_SKIP_PYTEST
` + profileLoop + `if [ "$s" = 1 ]; then echo skip; fi
`, []string{"c:echo"}, []string{"v:s", "v:FC_SKIP_PYTEST"}},
		{"flag read after the source", profileLoop + `if [ "${FC_SKIP_PYTEST-}" = 1 ]; then echo skip; fi
`, []string{"v:FC_SKIP_PYTEST"}, nil},
		{"assigned after the source", profileLoop + `X=1
echo "$X"
`, nil, []string{"v:X"}},
		{"made readonly after the source keeps the tainted value", profileLoop + `readonly X
echo "$X"
`, []string{"v:X"}, nil},
		{"readonly with a value after the source is clean", profileLoop + `readonly X=2
echo "$X"
`, nil, []string{"v:X"}},
		{"local in a function", profileLoop + `f() { local X=1; echo "$X"; }
f
`, nil, []string{"v:X", "c:f"}},
		{"function defined before the source can be shadowed", `g() { echo hi; }
` + profileLoop + `g
`, []string{"c:g"}, nil},
		{"function body read at the call", `g() { echo "$BENCHMARK_DATA"; }
` + profileLoop + `g
`, []string{"v:BENCHMARK_DATA"}, nil},
		{"source of a path the agent cannot write", `. /usr/share/lib.sh
echo "$X"
`, nil, []string{"v:X", "c:echo"}},
		{"source of a repository file", `source /workspace/repo/env.sh
echo "$X"
`, []string{"v:X"}, nil},
		{"source of an unknown path", `. "$HERE/lib.sh"
echo "$X"
`, []string{"v:X"}, nil},
		{"PATH for a program, none for an absolute path", profileLoop + `/usr/bin/python3 x.py
python3 y.py
`, []string{"v:PATH", "c:python3"}, []string{"c:/usr/bin/python3"}},
		// i is covered by i = 0, but how far it counts depends on N, so
		// it carries N: listed, with N as its origin.
		{"arithmetic and loop variables", profileLoop + `for ((i = 0; i < N; i++)); do :; done
`, []string{"v:N", "v:i"}, nil},
		{"read and mapfile assign", profileLoop + `read -r A < /dev/null; mapfile -t B < /dev/null
echo "$A" "${B[@]}"
`, nil, []string{"v:A", "v:B"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := uses(t, tc.script)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("uses %q, want %s among them", got, w)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("uses %q, want no %s", got, n)
				}
			}
		})
	}
}

// TestAnalyzeSources names the source and its line.
func TestAnalyzeSources(t *testing.T) {
	t.Parallel()
	a, err := Analyze("echo a\n"+profileLoop+"echo \"$X\"\n", config.DefaultAgentWritable)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Sources) != 1 || a.Sources[0].Line != 3 || !strings.HasPrefix(a.Sources[0].Path, "/etc/profile.d/") {
		t.Fatalf("sources %+v, want /etc/profile.d/*.sh at line 3", a.Sources)
	}
}

// TestAnalyzeDeepNesting: a script that nests deeper than shparse's
// limits is refused before the parser runs (2,000,000 levels of "$(" overflowed the
// Go stack, a fatal error that killed the process).
func TestAnalyzeDeepNesting(t *testing.T) {
	t.Parallel()
	n := 2_000_000
	tests := []struct {
		name, script string
		refused      bool
	}{
		{"command substitutions", "echo " + strings.Repeat("$(", n) + strings.Repeat(")", n) + "\n", true},
		{"braces", strings.Repeat("{ ", n) + "true" + strings.Repeat("; }", n) + "\n", true},
		{"if", strings.Repeat("if true; then ", n) + "true" + strings.Repeat("; fi", n) + "\n", true},
		{"ordinary nesting", strings.Repeat("if true; then ", 20) + "echo \"$(date)\"" + strings.Repeat("; fi", 20) + "\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Analyze(tc.script, nil)
			if refused := shparse.IsLimit(err); refused != tc.refused {
				t.Errorf("refused %v (%v), want %v", refused, err, tc.refused)
			}
		})
	}
}
