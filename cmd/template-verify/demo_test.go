package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/golden"
	"github.com/formula-code/template-verify/internal/housestyle"
)

// volatile matches what changes from run to run: durations, temporary
// folders, and the Jinja2 and pytest versions of the machine.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`), "<dur>"},
	{regexp.MustCompile(`\b\d+m\d+(\.\d+)?s\b`), "<dur>"},
	{regexp.MustCompile(`\b\d+(\.\d+)? s\b`), "<dur>"},
	{regexp.MustCompile(`\(Jinja2 [0-9.]+\)|\((\d+\.\d+\.\d+)\)`), "(<version>)"},
	{regexp.MustCompile(`pytest \d+\.\d+\.\d+ ran with \S+`), "pytest <version> ran with <python>"},
	// Temporary folders that pytest and bash name in their messages.
	{regexp.MustCompile(`/tmp/template-verify-[^\s'"]*`), "<tmp>"},
}

func normalize(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

func TestDemoGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs every check on the example; skipped with -short")
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		golden string
		want   []string // facts the comment must state, whatever the golden says
	}{
		{"good", []string{"demo", "--progress", "never"}, exitPass, "demo-good.md", []string{"| render | ✅ passed |", "| restore | ✅ passed |", "| pytest | ✅ passed |"}},
		{"bad", []string{"demo", "--bad", "--progress", "never"}, exitFail, "demo-bad.md", []string{
			"| render | ❌ failed |", "| pytest | ❌ failed |",
			"tests/test.sh:", "skip_reason", "bash -n fails",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := invoke(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s\nstdout:\n%s", code, tc.code, errOut, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("comment misses %q", w)
				}
			}
			if problems := housestyle.Lint(out); len(problems) > 0 {
				t.Errorf("the comment breaks the house style:\n%v", problems)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), normalize(out))
		})
	}
}
