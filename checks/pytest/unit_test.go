package pytest

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestShellQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "tests/test_x.py::test_a[1-2]", "it's", "a b", "", "$HOME", "ü", `back\slash`, "x::y"} {
		q := shellQuote(s)
		out, err := exec.Command("bash", "-c", "printf %s "+q).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		if string(out) != s {
			t.Errorf("shellQuote(%q) = %s, bash reads %q", s, q, out)
		}
	}
}

func TestReproduce(t *testing.T) {
	t.Parallel()
	got := reproduce([]string{"PYTHONPATH=src", "X=a b"}, "python3", []string{"tests/test_a.py::test[1]"}, true)
	want := `PYTHONPATH=src X='a b' python3 -m pytest -p no:cacheprovider --continue-on-collection-errors 'tests/test_a.py::test[1]'`
	if got != want {
		t.Errorf("reproduce = %s\nwant %s", got, want)
	}
}

func TestCheckPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, err string
	}{
		{"{python} {runner} --base {base} --out {result}", ""},
		{"FOO=${HOME} {python} {runner}", ""},
		{"{pyhton} {runner}", "unknown placeholder {pyhton}"},
		{"{python} {runner} --x {extra}", "unknown placeholder {extra}"},
	}
	for _, tc := range tests {
		err := checkPlaceholders(tc.cmd)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("checkPlaceholders(%q) = %v, want %q", tc.cmd, err, tc.err)
		}
	}
}

func TestExpandCommand(t *testing.T) {
	t.Parallel()
	got := expandCommand("{python} {runner} --base {base} --out {result}", map[string]string{
		"python": "/usr/bin/python3", "runner": "/w/my runner.py", "base": "abc", "result": "out.json",
	})
	if want := "/usr/bin/python3 '/w/my runner.py' --base abc --out out.json"; got != want {
		t.Errorf("expandCommand = %s, want %s", got, want)
	}
}

func TestCheckResultPath(t *testing.T) {
	t.Parallel()
	for p, ok := range map[string]bool{"test_results.json": true, "out/r.json": true, "/tmp/r.json": false, "../r.json": false, "": false} {
		if err := checkResultPath(p); (err == nil) != ok {
			t.Errorf("checkResultPath(%q) = %v", p, err)
		}
	}
}

func TestContextLines(t *testing.T) {
	t.Parallel()
	log := "FAILED tests/a.py::test_x - assert 1 == 2\nFAILED tests/a.py::test_xy - other\nFAILED tests/a.py::test_x[1] - param\n"
	text := "def test_x():\n>       assert 1 == 2\nE       assert 1 == 2\nE       AssertionError\n\ntests/a.py:2: AssertionError"
	got := contextLines("tests/a.py::test_x", "assert 1 == 2\n"+text, log)
	want := []string{
		"FAILED tests/a.py::test_x - assert 1 == 2",
		"assert 1 == 2",
		"AssertionError",
		"tests/a.py:2: AssertionError",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("contextLines = %q\nwant %q", got, want)
	}
}

func TestTracebackLine(t *testing.T) {
	t.Parallel()
	text := "Traceback:\n/usr/lib/python3.11/importlib/__init__.py:126: in import_module\ntests/test_b.py:7: in <module>\n    import nope"
	if got := tracebackLine(text, "tests/test_b.py"); got != 7 {
		t.Errorf("tracebackLine = %d, want 7", got)
	}
	if got := tracebackLine(text, "tests/test_c.py"); got != 0 {
		t.Errorf("tracebackLine of another file = %d, want 0", got)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	if got := cut("abcdef", 10); got != "abcdef" {
		t.Errorf("cut short = %q", got)
	}
	got := cut(strings.Repeat("ü", 10), 7)
	if len(got) > 7 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "ü") {
		t.Errorf("cut = %q (%d bytes)", got, len(got))
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k, id string
		want  bool
	}{
		{"tests/a.py::t", "tests/a.py", true},
		{"tests/a.py", "tests/a.py", true},
		{"tests/ab.py::t", "tests/a", false},
		{"tests/a.py::t", "tests", true},
		{"testsx/a.py::t", "tests", false},
	} {
		if got := within(tc.k, tc.id); got != tc.want {
			t.Errorf("within(%q, %q) = %v", tc.k, tc.id, got)
		}
	}
}
