package taint

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/shparse"
)

// TestTaintReadersMillionLevels: the tamper-file reader, like Analyze,
// refuses a million levels of $( ) before mvdan.cc/sh parses them (it
// parsed them unchecked, and the test binary died with "fatal error:
// stack overflow").
func TestTaintReadersMillionLevels(t *testing.T) {
	n := 1_000_000
	src := "echo x > /etc/profile.d/a.sh\necho " + strings.Repeat("$( ", n) + "x" + strings.Repeat(" )", n) + "\n"
	if got := profileFiles(src, "/etc/profile.d"); got != nil {
		t.Errorf("profileFiles: %q, want nothing", got)
	}
	if _, err := Analyze(src, nil); !shparse.IsLimit(err) {
		t.Errorf("Analyze: %v, want a shell reader limit", err)
	}
}

// FuzzTaintReaders: no text crashes the taint readers.
func FuzzTaintReaders(f *testing.F) {
	f.Add("source /etc/profile.d/x.sh\necho " + strings.Repeat("$( ", 3000) + strings.Repeat(")", 3000) + "\n")
	f.Add("x=a\n" + strings.Repeat("x=$x$x\n", 40) + "source $x\n")
	f.Add("f() { f; }\nf\n" + strings.Repeat("if a; then ", 500) + strings.Repeat("fi; ", 500) + "\n")
	f.Add("a=(x)\n" + strings.Repeat("a+=(\"${a[@]}\")\n", 40) + ". \"${a[@]}\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		Analyze(src, nil)
		uncoveredReads(src)
		profileFiles(src, "/etc/profile.d")
	})
}
