package pytestlog

import (
	"reflect"
	"testing"
)

func TestParseRules(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want Result
	}{
		{
			name: "FAILED line goes to failed in full",
			log:  "FAILED tests/test_a.py::test_x - assert 1 == 2",
			want: Result{Failed: []string{"FAILED tests/test_a.py::test_x - assert 1 == 2"}, FailureCount: 1},
		},
		{
			name: "FAILED line is stripped first",
			log:  "   FAILED tests/a.py::t  \t",
			want: Result{Failed: []string{"FAILED tests/a.py::t"}, FailureCount: 1},
		},
		{
			name: "FAILED is a prefix match, not a word match",
			log:  "FAILEDX",
			want: Result{Failed: []string{"FAILEDX"}, FailureCount: 1},
		},
		{
			name: "E line loses exactly E and one space",
			log:  "E  x",
			want: Result{Errors: []string{" x"}, FailureCount: 1},
		},
		{
			name: "E line with indent keeps the rest of its spaces",
			log:  "    E       assert 1 == 2",
			want: Result{Errors: []string{"      assert 1 == 2"}, FailureCount: 1},
		},
		{
			name: "E followed by a tab",
			log:  "E\tValueError: x",
			want: Result{Errors: []string{"ValueError: x"}, FailureCount: 1},
		},
		{
			name: "E followed by a non-breaking space (Python \\s)",
			log:  "E\u00a0boom",
			want: Result{Errors: []string{"boom"}, FailureCount: 1},
		},
		{
			name: "E followed by a unit separator (Python \\s, not Go unicode.IsSpace)",
			log:  "E\x1fboom",
			want: Result{Errors: []string{"boom"}, FailureCount: 1},
		},
		{
			name: "E followed by an ideographic space removes the whole rune",
			log:  "E\u3000\u3000z",
			want: Result{Errors: []string{"\u3000z"}, FailureCount: 1},
		},
		{
			name: "ERROR lines do not match the E rule",
			log:  "ERROR tests/test_a.py - ImportError",
			want: Result{},
		},
		{
			name: "E alone does not match: stripping removed the space",
			log:  "E   ",
			want: Result{},
		},
		{
			name: "EE does not match the E rule",
			log:  "EE x",
			want: Result{},
		},
		{
			name: "AssertionError anywhere in the line",
			log:  "  raise AssertionError('x')",
			want: Result{Assertions: []string{"raise AssertionError('x')"}, FailureCount: 1},
		},
		{
			name: "FAILED with AssertionError only in failed",
			log:  "FAILED tests/a.py::t - AssertionError: boom",
			want: Result{Failed: []string{"FAILED tests/a.py::t - AssertionError: boom"}, FailureCount: 1},
		},
		{
			name: "E AssertionError only in errors",
			log:  "E       AssertionError: boom",
			want: Result{Errors: []string{"      AssertionError: boom"}, FailureCount: 1},
		},
		{
			name: "rules are case-sensitive",
			log:  "failed x\nFailed y\ne  z\nassertionerror\nASSERTIONERROR",
			want: Result{},
		},
		{
			name: "duplicates are kept",
			log:  "FAILED a\nFAILED a\nE x\nE x",
			want: Result{Failed: []string{"FAILED a", "FAILED a"}, Errors: []string{"x", "x"}, FailureCount: 2},
		},
		{
			name: "failure_count prefers assertions over errors",
			log:  "E one\nE two\nE three\nAssertionError: a",
			want: Result{Errors: []string{"one", "two", "three"}, Assertions: []string{"AssertionError: a"}, FailureCount: 1},
		},
		{
			name: "failure_count prefers failed over assertions",
			log:  "AssertionError 1\nAssertionError 2\nFAILED x",
			want: Result{Failed: []string{"FAILED x"}, Assertions: []string{"AssertionError 1", "AssertionError 2"}, FailureCount: 1},
		},
		{
			name: "failure_count falls back to errors",
			log:  "E one\nE two",
			want: Result{Errors: []string{"one", "two"}, FailureCount: 2},
		},
		{
			name: "empty log",
			log:  "",
			want: Result{},
		},
		{
			name: "CRLF and CR end lines",
			log:  "FAILED a\r\nFAILED b\rFAILED c",
			want: Result{Failed: []string{"FAILED a", "FAILED b", "FAILED c"}, FailureCount: 3},
		},
		{
			name: "splitlines breaks: VT FF FS GS RS NEL LS PS",
			log:  "FAILED 1\vFAILED 2\fFAILED 3\x1cFAILED 4\x1dFAILED 5\x1eFAILED 6\u0085FAILED 7\u2028FAILED 8\u2029FAILED 9",
			want: Result{Failed: []string{"FAILED 1", "FAILED 2", "FAILED 3", "FAILED 4", "FAILED 5", "FAILED 6", "FAILED 7", "FAILED 8", "FAILED 9"}, FailureCount: 9},
		},
		{
			name: "US (0x1f) is white space but not a line break",
			log:  "\x1fFAILED x\x1fFAILED y\x1f",
			want: Result{Failed: []string{"FAILED x\x1fFAILED y"}, FailureCount: 1},
		},
		{
			name: "a line break between E and its space ends the line",
			log:  "E\x1cx",
			want: Result{},
		},
		{
			name: "invalid UTF-8 is not white space",
			log:  "\xffFAILED x\nE \xff\nAssertionError \xfe",
			want: Result{Errors: []string{"\xff"}, Assertions: []string{"AssertionError \xfe"}, FailureCount: 1},
		},
		{
			name: "U+FFFD is not white space",
			log:  "\ufffdFAILED x",
			want: Result{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.log)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q)\n got %#v\nwant %#v", tc.log, got, tc.want)
			}
		})
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\n", []string{"a", ""}},
		{"a\r\nb", []string{"a", "b"}},
		{"a\n\rb", []string{"a", "", "b"}},
		{"a\r\r\nb", []string{"a", "", "b"}},
		{"a\x1fb", []string{"a\x1fb"}},
		{"a\u2028b\u2029", []string{"a", "b"}},
		{"\xe2\x80", []string{"\xe2\x80"}}, // a cut U+2028 is not a break
	}
	for _, tc := range tests {
		if got := Lines(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{" \t\n", ""},
		{" a b ", "a b"},
		{"\u3000a\u00a0", "a"},
		{"\x1c\x1d\x1e\x1fa\x1f", "a"},
		{"\u200ba", "\u200ba"}, // zero-width space is not white space in Python
		{"\xff ", "\xff"},
		{" \xff", "\xff"},
	}
	for _, tc := range tests {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseRealLog(t *testing.T) {
	// tests/test_mix.py run with pytest -q: 5 failed, 2 errors.
	got := Parse(readLog(t, "real_q.log"))
	wantFailed := []string{
		"FAILED tests/test_mix.py::test_assert - AssertionError: lists differ",
		"FAILED tests/test_mix.py::test_raise - ValueError: bad value\twith tab",
		"FAILED tests/test_mix.py::test_param[\\xfc] - AssertionError: assert 'ü' == 1",
		"FAILED tests/test_mix.py::test_param[E x] - AssertionError: assert 'E x' == 1",
		"FAILED tests/test_mix.py::TestKlass::test_method - AssertionError: AssertionE...",
	}
	if !reflect.DeepEqual(got.Failed, wantFailed) {
		t.Errorf("failed = %q\nwant %q", got.Failed, wantFailed)
	}
	if got.FailureCount != 5 {
		t.Errorf("failure_count = %d, want 5", got.FailureCount)
	}
	if len(got.Errors) == 0 || got.Errors[0] != "  ModuleNotFoundError: No module named 'nonexistent_module_xyz'" {
		t.Errorf("first error line = %q", first(got.Errors))
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
