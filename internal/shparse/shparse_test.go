package shparse

import (
	"errors"
	"os"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// deepCmdSubst is "echo $( $( ... x ... ) )" nested n levels.
func deepCmdSubst(n int) string {
	return "echo " + strings.Repeat("$( ", n) + "x" + strings.Repeat(" )", n) + "\n"
}

func TestParseRefusesAMillionLevelsOfCmdSubst(t *testing.T) {
	_, err := Parse(deepCmdSubst(1_000_000))
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("Parse of a million levels of $( ): err %v, want a *LimitError", err)
	}
	if le.What != "nesting depth" || le.Line != 1 {
		t.Errorf("limit %q at line %d, want nesting depth at line 1", le.What, le.Line)
	}
}

func TestCheckNamesTheLimitAndLine(t *testing.T) {
	lim := Limits{MaxBytes: 1 << 30, MaxDepth: 50, MaxNesters: 1 << 30}
	src := "echo one\necho two\n" + deepCmdSubst(60)
	err := Check(src, lim)
	var le *LimitError
	if !errors.As(err, &le) || le.What != "nesting depth" || le.Line != 3 {
		t.Fatalf("Check: %v, want nesting depth at line 3", err)
	}
	if !strings.Contains(err.Error(), "more than 50 levels deep at line 3") {
		t.Errorf("message %q", err)
	}
	if err := Check(deepCmdSubst(50), lim); err != nil {
		t.Errorf("50 levels with a limit of 50: %v", err)
	}
}

// Quoted, commented and here-document closers do not lower the depth;
// quoted openers do not raise it.
func TestDepthReadsQuotes(t *testing.T) {
	lim := Limits{MaxBytes: 1 << 30, MaxDepth: 3, MaxNesters: 1 << 30}
	for _, tc := range []struct {
		src  string
		deep bool
	}{
		{"echo '((((((((' \"((((((\" \\( \\( \\( \\( # ((((((\n", false},
		{"cat <<'EOF'\n((((((((\nEOF\necho ok\n", false},
		{"cat <<-EOF\n\t((((((((\n\tEOF\necho ok\n", false},
		{"echo \"$(echo \"$(echo \"$(x)\")\")\"\n", true}, // " $( " $( " $( : 6 levels
		{"echo ${a[${b[${c[0]}]}]}\n", true},
		{"echo $'\\'(((('\n", false},
		{"x=${#y} ((( )))\n", false},
	} {
		err := Check(tc.src, lim)
		if got := err != nil; got != tc.deep {
			t.Errorf("Check(%q) = %v, want deep %v", tc.src, err, tc.deep)
		}
	}
}

// A case pattern's ")" fools the depth scan (the scan is a scan, not the
// parser) into closing the "$(" around it, but not the count of nesters:
// the text is still refused.
func TestNestersCatchWhatTheScanMisreads(t *testing.T) {
	n := 30000
	src := "echo " + strings.Repeat("$( case x in a) ", n) + "x" + strings.Repeat(" ;; esac )", n) + "\n"
	if line := depth(src, 200); line != 0 {
		t.Fatalf("the depth scan sees this text as deep (line %d); the test needs one it misreads", line)
	}
	err := Check(src, Limits{MaxBytes: 1 << 30, MaxDepth: 200, MaxNesters: 20000})
	var le *LimitError
	if !errors.As(err, &le) || le.What != "nesters" {
		t.Fatalf("Check: %v, want the nesters limit", err)
	}
}

func TestParseAcceptsTheDatasmithScript(t *testing.T) {
	b, err := os.ReadFile("../../examples/datasmith-mini/base/src/datasmith/harbor_adapter/template/tests/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(string(b), Default); err != nil {
		t.Fatalf("Check of the example test.sh: %v", err)
	}
	if _, err := Parse(string(b)); err == nil {
		t.Log("parsed") // the template holds Jinja tags; parsing may fail, the limits may not
	}
}

// treeDepth is the deepest nesting of nodes under f, counted without
// recursion of its own beyond syntax.Walk.
func treeDepth(f *syntax.File) int {
	var stack []syntax.Node
	deepest := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		deepest = max(deepest, len(stack))
		return true
	})
	return deepest
}

// FuzzCheckBoundsTheTree: whatever text passes Check parses into a tree
// no deeper than a few nodes per nester, so the parser and every walk
// of its tree recurse a bounded number of times.
func FuzzCheckBoundsTheTree(f *testing.F) {
	for _, s := range []string{
		deepCmdSubst(300),
		"x=$x$x\n",
		"a+=(\"${a[@]}\")\n",
		"echo $((1+1+1+1+1))\n",
		"x && y || z | w\n",
		"if a; then if b; then c; fi; fi\n",
		"echo $( echo ')' $( echo ')' ))\n",
		"case x in a) $( b ) ;; esac\n",
		"cat <<E\n$(x)\nE\n",
		"f() { g() { h; }; }\n",
		"echo `a \\`b\\``\n",
	} {
		f.Add(s)
	}
	lim := Limits{MaxBytes: 1 << 16, MaxDepth: 64, MaxNesters: 256}
	f.Fuzz(func(t *testing.T, src string) {
		if Check(src, lim) != nil {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		// A file, a statement and a word: three levels for no nester.
		if d := treeDepth(file); d > 8*(lim.MaxNesters+1) {
			t.Fatalf("tree depth %d for a text that passed Check with at most %d nesters", d, lim.MaxNesters)
		}
	})
}
