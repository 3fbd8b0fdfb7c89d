package taint

import (
	"slices"
	"testing"
)

// TestCommandUses: after a source of an agent-writable file, a command
// name the file could shadow with a function is listed, and PATH with it
// where PATH finds the program. Each row is a script and exactly its uses
// (c:command, v:variable).
func TestCommandUses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
	}{
		{"a program", src + "python3 x.py\n", []string{"v:PATH", "c:python3"}},
		{"a builtin needs no PATH", src + "echo hi\n", []string{"c:echo"}},
		{"an absolute path", src + "/usr/bin/python3 x.py\n", nil},
		{"a relative path", src + "./run.sh\n", nil},
		{"before the source", "python3 x.py\n" + src, nil},
		{"PATH set after the source", src + "PATH=/usr/bin:/bin\npython3 x.py\n", []string{"c:python3"}},
		{"PATH from an agent value", src + "PATH=\"$HOME/bin:/usr/bin\"\npython3 x.py\n", []string{"v:HOME", "v:PATH", "c:python3"}},
		{"a function defined after the source", src + "f() { X=1; }\nf\n", nil},
		{"a function defined before the source", "f() { X=1; }\n" + src + "f\n", []string{"c:f"}},
		{"a function defined on one branch only", src + "if c; then f() { X=1; }; fi\nf\n", []string{"v:PATH", "c:c", "c:f"}},
		{"a function defined after a second source", src + "f() { X=1; }\n" + src + "f\n", []string{"c:.", "c:f"}},
		{"the first use gives the line", src + "echo a\necho b\n", []string{"c:echo"}},
		{"a command in a substitution", src + "X=$(date)\n", []string{"v:PATH", "c:date"}},
		{"a command after exit", src + "exit 0\npython3 x.py\n", []string{"c:exit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := uses(t, tc.script); !slices.Equal(got, tc.want) {
				t.Errorf("uses %q, want %q\n%s", got, tc.want, tc.script)
			}
		})
	}
}

// TestUseLines: a use names the first line that reads it and the source
// that taints it.
func TestUseLines(t *testing.T) {
	t.Parallel()
	script := "echo start\n" + src + "echo \"$A\"\nB=\"$A\"\necho \"$B\"\n" + src + "echo \"$C\"\n"
	a, err := Analyze(script, []string{"/etc/profile.d/*"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"A": {3, 2}, "B": {5, 2}, "C": {7, 6}}
	got := map[string][2]int{}
	for _, u := range a.Uses {
		if u.Kind == KindVariable {
			got[u.Name] = [2]int{u.Line, u.SourceLine}
		}
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: line %d, source line %d; want %d, %d", n, got[n][0], got[n][1], w[0], w[1])
		}
	}
	if len(a.Sources) != 2 || a.Sources[0].Line != 2 || a.Sources[1].Line != 6 {
		t.Errorf("sources %+v, want lines 2 and 6", a.Sources)
	}
}
