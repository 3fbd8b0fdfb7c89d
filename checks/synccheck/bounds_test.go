package synccheck

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/shparse"
)

// millionLevels is a shell script with an array and a million levels of
// $( ) after it.
func millionLevels() string {
	n := 1_000_000
	return "a=(x y z)\necho " + strings.Repeat("$( ", n) + "x" + strings.Repeat(" )", n) + "\n"
}

// TestBashReadersMillionLevels: the sync check's bash readers refuse a
// million levels of $( ) with the shell reader's limit. Before
// internal/shparse, mvdan.cc/sh parsed it and the test binary died with
// "fatal error: stack overflow". BashArray reads the array from the
// lines that assign it, as for a script that does not parse.
func TestBashReadersMillionLevels(t *testing.T) {
	src := millionLevels()
	if _, err := bashLists(src); !shparse.IsLimit(err) {
		t.Errorf("bashLists: %v, want a shell reader limit", err)
	}
	items, _, err := bashArray(src, "a")
	if err != nil || len(items) != 3 || items[2].Value != "z" {
		t.Errorf("bashArray: %v, %+v, want x y z from line 1", err, items)
	}
}

// FuzzBashReaders: no text crashes the sync check's bash readers.
func FuzzBashReaders(f *testing.F) {
	f.Add("a=(x y)\necho " + strings.Repeat("$( ", 3000) + strings.Repeat(")", 3000) + "\n")
	f.Add("a=(x)\n" + strings.Repeat("a+=(\"${a[@]}\")\n", 40))
	f.Add("x=a\n" + strings.Repeat("x=$x$x\n", 40) + "a=($x)\n")
	f.Add("grep -e a -f b -e " + strings.Repeat("$((1+", 2000) + "1" + strings.Repeat("))", 2000) + "\n")
	f.Fuzz(func(t *testing.T, src string) {
		bashLists(src)
		bashArray(src, "a")
	})
}
