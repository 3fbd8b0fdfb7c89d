package pytestlog

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks invariants that hold for any input, valid UTF-8 or not.
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "FAILED x", "E  x", "AssertionError", "E\u3000y\r\nFAILED\x1c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, log string) {
		r := Parse(log)
		lines := Lines(log)
		stripped := map[string]bool{}
		for _, l := range lines {
			stripped[Strip(l)] = true
		}
		if n := len(r.Failed) + len(r.Errors) + len(r.Assertions); n > len(lines) {
			t.Fatalf("%d markers from %d lines", n, len(lines))
		}
		for _, l := range r.Failed {
			if !strings.HasPrefix(l, "FAILED") || Strip(l) != l || !stripped[l] {
				t.Fatalf("failed item %q is not a stripped FAILED line of the input", l)
			}
		}
		for _, l := range r.Assertions {
			if !strings.Contains(l, "AssertionError") || strings.HasPrefix(l, "FAILED") || isErrorLine(l) || !stripped[l] {
				t.Fatalf("assertion item %q breaks the rules", l)
			}
		}
		for _, e := range r.Errors {
			found := false
			for l := range stripped {
				if isErrorLine(l) && dropErrorPrefix(l) == e {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("error item %q comes from no E line", e)
			}
		}
		want := len(r.Failed)
		if want == 0 {
			want = len(r.Assertions)
		}
		if want == 0 {
			want = len(r.Errors)
		}
		if r.FailureCount != want {
			t.Fatalf("failure_count %d, want %d", r.FailureCount, want)
		}
		// Lines hold no line breaks, and the lines each ended by \n split
		// the same way again.
		for _, l := range lines {
			for _, c := range l {
				if isLineBreak(c) {
					t.Fatalf("line %q holds a line break", l)
				}
			}
		}
		rejoined := ""
		for _, l := range lines {
			rejoined += l + "\n"
		}
		if again := Lines(rejoined); !reflect.DeepEqual(again, lines) {
			t.Fatalf("lines %q split again to %q", lines, again)
		}
		// Parsing is compositional: a+"\n"+b gives the buckets of a then b.
		cut := len(log) / 2
		a, b := Parse(log[:cut]), Parse(log[cut:])
		joined := Parse(log[:cut] + "\n" + log[cut:])
		if !slices.Equal(joined.Failed, append(a.Failed, b.Failed...)) ||
			!slices.Equal(joined.Errors, append(a.Errors, b.Errors...)) ||
			!slices.Equal(joined.Assertions, append(a.Assertions, b.Assertions...)) {
			t.Fatalf("Parse(a+\\n+b) != Parse(a)+Parse(b) for a=%q b=%q", log[:cut], log[cut:])
		}
	})
}
