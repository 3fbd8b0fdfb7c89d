package taint

import (
	"slices"
	"testing"
)

// TestFlowThroughControl: loops, jumps, case items, function calls and
// sources in their many shapes. Each row is a script and exactly the
// variables it reads uncovered (NAME<-FROM when the value carries other
// names).
func TestFlowThroughControl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
	}{
		// Loops and jumps.
		{"until body may not run", src + "until c; do X=1; done\necho \"$X\"\n", []string{"X"}},
		{"c-style loop body may not run", src + "for ((i = 0; i < 3; i++)); do X=1; done\necho \"$X\"\n", []string{"X"}},
		{"an endless c-style loop left by break", src + "for ((;;)); do X=1; break; done\necho \"$X\"\n", nil},
		{"until false left by break", src + "until false; do X=1; break; done\necho \"$X\"\n", nil},
		{"while true with a break before the assignment", src + "while true; do if c; then break; fi; X=1; done\necho \"$X\"\n", []string{"X"}},
		{"while true with no break ends the path", src + "while true; do sleep 1; done\necho \"$X\"\n", nil},
		{"continue skips the assignment", src + "X=1\nfor f in a b; do if c; then continue; fi; X=\"$Y\"; done\necho \"$X\"\n", []string{"X<-Y", "Y"}},
		{"break 2 leaves both loops", src + "while c; do while d; do break 2; done; X=1; done\necho \"$X\"\n", []string{"X"}},
		{"an endless loop left by break after the assignment", src + "while :; do X=1; break; done\necho \"$X\"\n", nil},
		{"a source inside the loop", "X=1\nfor i in 1 2; do echo \"$X\"; " + "source /etc/profile.d/a.sh; done\n", []string{"X"}},
		{"case fallthrough", src + "case lit in a) X=1 ;& b) echo \"$X\" ;; esac\n", []string{"X"}},
		{"case word decides", src + "case \"$MODE\" in fast) X=1 ;; *) X=2 ;; esac\necho \"$X\"\n", []string{"MODE", "X<-MODE"}},
		{"exit in a function ends the path", src + "die() { exit 1; }\nif c; then X=1; else die; fi\necho \"$X\"\n", nil},
		{"return from inside a loop", src + "f() { while c; do return; done; X=1; }\nf\necho \"$X\"\n", []string{"X"}},
		// Grouping and subshells.
		{"a brace group keeps its assignments", src + "{ X=1; }\necho \"$X\"\n", nil},
		{"a background job does not", src + "X=1 &\necho \"$X\"\n", []string{"X"}},
		{"a coprocess does not", src + "coproc { X=1; }\necho \"$X\"\n", []string{"X"}},
		{"time keeps them", src + "time X=1\necho \"$X\"\n", nil},
		// Functions.
		{"declare -g in a function is global", src + "f() { declare -g X=1; }\nf\necho \"$X\"\n", nil},
		{"declare in a function is local", src + "f() { declare X=1; }\nf\necho \"$X\"\n", []string{"X"}},
		{"a call before the definition is a command", src + "f\nf() { X=1; }\necho \"$X\"\n", []string{"X"}},
		{"recursion is cut, not followed forever", src + "f() { if c; then f; fi; X=1; }\nf\necho \"$X\"\n", nil},
		{"a redefinition runs the new body", src + "f() { X=1; }\nf() { :; }\nf\necho \"$X\"\n", []string{"X"}},
		{"unset -f", src + "f() { X=1; }\nunset -f f\necho \"$X\"\n", []string{"X"}},
		{"a prefix assignment of a function call ends with it", src + "f() { echo \"$X\"; }\nX=1 f\necho \"$X\"\n", []string{"X"}},
		// Sources by variable.
		{"a variable that names a writable file", "P=/etc/profile.d/a.sh\n. \"$P\"\necho \"$X\"\n", []string{"X"}},
		{"a variable that names a safe file", "P=/opt/lib/a.sh\n. \"$P\"\necho \"$X\"\n", nil},
		{"a variable set on two branches", "if c; then P=/etc/profile.d/a.sh; else P=/opt/lib/a.sh; fi\n. \"$P\"\necho \"$X\"\n", []string{"X"}},
		{"a loop over named files", "for f in /opt/a.sh /etc/profile.d/b.sh; do . \"$f\"; done\necho \"$X\"\n", []string{"X"}},
		{"a loop over safe files", "for f in /opt/a.sh /opt/b.sh; do . \"$f\"; done\necho \"$X\"\n", nil},
		{"a dead source", "exit 0\n" + src + "echo \"$X\"\n", nil},
		{"a safe path the sourced file may change", "P=/opt/lib/a.sh\n" + src + ". \"$P\"\nX=1\necho \"$X\" \"$Y\"\n", []string{"P", "Y"}},
		{"a loop that names a writable file on its second pass", "P=/opt/a.sh\nwhile c; do . \"$P\"; P=/etc/profile.d/b.sh; done\necho \"$X\"\n", []string{"X"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := varUses(t, tc.script); !slices.Equal(got, tc.want) {
				t.Errorf("uncovered reads %q, want %q\n%s", got, tc.want, tc.script)
			}
		})
	}
}
