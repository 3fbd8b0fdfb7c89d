package restore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/shparse"
)

// doublingStep is a restore step that doubles x forty times before it
// greps with it: 2^40 copies of the value.
func doublingStep(lines int) string {
	return "x='(^|/)tests/'\n" + strings.Repeat("x=$x$x\n", lines) + "git diff --name-only HEAD | grep -E -e \"$x\"\n"
}

// TestReadStepPolicyDoubling: forty lines of x=$x$x and of
// a+=("${a[@]}") stop the policy reader at its value limit with the line
// where the value passed it. Before derivebounds.go, the x=$x$x step took
// the reader past 3 GB to a fatal "out of memory" of the test binary, and
// the array step past the test's own memory.
func TestReadStepPolicyDoubling(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		line         string
	}{
		{"x=$x$x", doublingStep(40), "line 16: a word would have"},
		{`a+=("${a[@]}")`, "a=(-e '(^|/)tests/')\n" + strings.Repeat("a+=(\"${a[@]}\")\n", 40) + "git diff --name-only HEAD | grep -E \"${a[@]}\"\n", "line 15: the words of a command"},
		{"printf >> a file", "x=$(printf 'y%.0s' {1..10})\n" + "x=" + strings.Repeat("aaaaaaaaaaaaaaaa", 64) + "\n" +
			strings.Repeat("printf '%s\\n' \"$x\" \"$x\" \"$x\" \"$x\" >> /tmp/p\n", 2000) + "git diff --name-only | grep -E -f /tmp/p\n", "line 255: the lines written to /tmp/p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadStepPolicy(tc.script)
			if !errors.Is(err, errValueLimit) || !strings.Contains(err.Error(), tc.line) {
				t.Fatalf("ReadStepPolicy: %v, want the value limit", err)
			}
			t.Log(err)
			if sp := ReadStepPaths(tc.script); sp != (StepPaths{}) {
				t.Errorf("ReadStepPaths: %+v, want no paths", sp)
			}
		})
	}
	// Twelve doublings stay within the limits.
	sp, err := ReadStepPolicy(doublingStep(12))
	if err != nil || len(sp.Patterns) != 1 {
		t.Fatalf("12 doublings: %v, %d patterns", err, len(sp.Patterns))
	}
}

// TestReadStepPolicyManyPatterns: a step that writes 2,000 patterns and
// reads them with grep -E -f is past the reader's pattern limit. Before,
// each became a Go regular expression and candidates for the probe.
func TestReadStepPolicyManyPatterns(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("printf '%s\\n' \\\n")
	for i := range 2000 {
		fmt.Fprintf(&sb, "  '^dir%d/(a|b)' \\\n", i)
	}
	sb.WriteString("  > /tmp/pats\ngit diff --name-only HEAD | grep -E -f /tmp/pats\n")
	_, err := ReadStepPolicy(sb.String())
	if !errors.Is(err, errValueLimit) || !strings.Contains(err.Error(), "more than 500 patterns") {
		t.Fatalf("ReadStepPolicy: %v, want the pattern limit", err)
	}
}

// TestStepReadersMillionLevels: a million levels of $( ) in a restore
// step are refused by the shell reader's depth limit. Before
// internal/shparse, the test binary died with "fatal error: stack
// overflow" in mvdan.cc/sh.
func TestStepReadersMillionLevels(t *testing.T) {
	n := 1_000_000
	script := "git diff --name-only | grep -E -e x\necho " + strings.Repeat("$( ", n) + "x" + strings.Repeat(" )", n) + "\n"
	if _, err := ReadStepPolicy(script); !shparse.IsLimit(err) {
		t.Errorf("ReadStepPolicy: %v, want a shell reader limit", err)
	}
	if sp := ReadStepPaths(script); sp != (StepPaths{}) {
		t.Errorf("ReadStepPaths: %+v", sp)
	}
	if _, err := ExtractPrelude(script+"# section\n", 3, "echo x\n"); !shparse.IsLimit(err) {
		t.Errorf("ExtractPrelude: %v, want a shell reader limit", err)
	}
}

// FuzzReadStepPolicy: no step text crashes the policy and path readers
// or makes them hold more than their limits.
func FuzzReadStepPolicy(f *testing.F) {
	f.Add(doublingStep(40))
	f.Add("a=(x)\n" + strings.Repeat("a+=(\"${a[@]}\" \"${a[@]}\")\n", 30) + "git diff | grep -e \"${a[@]}\"\n")
	f.Add("x=ab\n" + strings.Repeat("x=${x//?/$x$x}\n", 20) + "git diff | grep -e \"$x\"\n")
	f.Add("echo " + strings.Repeat("$( ", 5000) + strings.Repeat(")", 5000) + "\ngit diff | grep -e x\n")
	f.Add("cat > f <<E\n" + strings.Repeat("$x$x$x$x\n", 50) + "E\ngit diff | grep -f f\n")
	f.Add("# section\n" + strings.Repeat("x=$x$x\n", 40) + "echo " + strings.Repeat("$(", 300) + strings.Repeat(")", 300) + "\n")
	f.Fuzz(func(t *testing.T, script string) {
		sp, err := ReadStepPolicy(script)
		if err == nil && len(sp.Patterns) > maxPatterns {
			t.Fatalf("%d patterns", len(sp.Patterns))
		}
		ReadStepPaths(script)
		ExtractPrelude(script, 2, script)
	})
}
