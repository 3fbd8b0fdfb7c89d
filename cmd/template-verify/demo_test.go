package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/internal/golden"
	"github.com/formula-code/template-verify/internal/housestyle"
	"github.com/formula-code/template-verify/internal/sarifcheck"
	"github.com/formula-code/template-verify/report"
)

// volatile matches what changes from run to run: durations, the Jinja2
// and pytest versions of the machine and its python3's path (normalize
// masks the temporary folders too).
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`), "<dur>"},
	{regexp.MustCompile(`\b\d+m\d+(\.\d+)?s\b`), "<dur>"},
	{regexp.MustCompile(`\b\d+(\.\d+)? s\b`), "<dur>"},
	{regexp.MustCompile(`\(Jinja2 [0-9.]+\)|\((\d+\.\d+\.\d+)\)`), "(<version>)"},
	{regexp.MustCompile(`pytest \d+\.\d+\.\d+ ran with \S+`), "pytest <version> ran with <python>"},
	// The Jinja2 of the machine's Debian python3 (3.1.2 from Ubuntu 24.04's
	// and Debian 12's package), and its path in the commands: python3 when
	// it is the first on PATH, as on GitHub's runner, else /usr/bin/python3.
	{regexp.MustCompile(`Python Jinja2 \d+\.\d+\.\d+`), "Python Jinja2 <version>"},
	{regexp.MustCompile(`(/usr/bin/)?python3 -m pytest`), "<python> -m pytest"},
}

func normalize(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	// Temporary folders that pytest and bash name in their messages.
	return golden.MaskTemp(s)
}

// demoRun is one run of the demo on the good or the bad head, made once
// and shared by the tests that read its report (each run verifies the
// example with every check).
type demoRun struct {
	once   sync.Once
	rep    *report.Report
	code   int
	stderr string
}

var demoRuns = map[bool]*demoRun{false: {}, true: {}}

// demo returns the report of `template-verify demo` (with --bad when bad),
// as the command makes it before it writes it in a format.
func demo(t *testing.T, bad bool) *report.Report {
	t.Helper()
	r := demoRuns[bad]
	r.once.Do(func() {
		args := []string{"--progress", "never"}
		if bad {
			args = append(args, "--bad")
		}
		var errb bytes.Buffer
		r.rep, _, r.code = demoReport(context.Background(), args, &errb)
		r.stderr = errb.String()
	})
	if r.rep == nil {
		t.Fatalf("demo (bad: %v): exit %d\n%s", bad, r.code, r.stderr)
	}
	return r.rep
}

// demoOutput writes the demo's report in format as the command does, and
// returns the exit code and what it wrote.
func demoOutput(t *testing.T, bad bool, format string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := output(demo(t, bad), format, &out, &errb)
	return code, out.String(), errb.String()
}

// TestDemoGolden: the comment of `template-verify demo` and of `demo --bad`
// (their markdown, as the command writes it) is the golden file, states
// the facts in want, and passes the house style.
func TestDemoGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs every check on the example; skipped with -short")
	}
	t.Parallel()
	cases := []struct {
		name   string
		bad    bool
		code   int
		golden string
		want   []string // facts the comment must state, whatever the golden says
	}{
		{"good", false, exitPass, "demo-good.md", []string{"| render | ✅ passed |", "| restore | ✅ passed |", "| pytest | ✅ passed |"}},
		{"bad", true, exitFail, "demo-bad.md", []string{
			"| render | ❌ failed |", "| pytest | ❌ failed |",
			"tests/test.sh:", "skip_reason", "bash -n fails",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := demoOutput(t, tc.bad, "markdown")
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

// TestDemoBadSARIF: the SARIF log of `demo --bad` is what GitHub code
// scanning takes: valid against the SARIF 2.1.0 schema, every result with
// a file and a fingerprint, every rule with a description and its page
// (internal/sarifcheck), and it holds the failures as errors.
func TestDemoBadSARIF(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs every check on the example; skipped with -short")
	}
	t.Parallel()
	code, out, errOut := demoOutput(t, true, "sarif")
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s", code, exitFail, errOut)
	}
	if err := sarifcheck.Validate([]byte(out)); err != nil {
		t.Errorf("code scanning would refuse the SARIF of demo --bad: %v", err)
	}
	if n := strings.Count(out, `"level": "error"`); n < 2 {
		t.Errorf("%d error results, want one a failure of render and pytest at least", n)
	}
}

// TestSARIFDocsURL: run as a GitHub Action step, the rules' pages are in
// the action's repository at its ref, on its server; elsewhere the
// default (report.DocsURL) applies.
func TestSARIFDocsURL(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := sarifDocsURL(env(map[string]string{"GITHUB_SERVER_URL": "https://ghe.example/", "GITHUB_ACTION_REPOSITORY": "me/template-verify", "GITHUB_ACTION_REF": "v2.0.1"})); got != "https://ghe.example/me/template-verify/blob/v2.0.1/docs/checks/" {
		t.Errorf("in an action step: %s", got)
	}
	if got := sarifDocsURL(env(map[string]string{"GITHUB_SERVER_URL": "https://github.com"})); got != "" {
		t.Errorf("outside an action step: %q, want the default", got)
	}
}

// TestDemoKeepRelative: demo --keep with a relative folder builds the
// example there, under the working directory, and says where it is.
// Not parallel: it changes the working directory.
func TestDemoKeepRelative(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	var errb bytes.Buffer
	rep, _, code := demoReport(context.Background(), []string{"--progress", "never", "--only", "render", "--keep", "ex"}, &errb)
	if rep == nil || code != exitPass {
		t.Fatalf("demo --keep ex: exit %d\n%s", code, errb.String())
	}
	abs := filepath.Join(wd, "ex")
	if !strings.Contains(errb.String(), "The example repository is in "+abs+" ") {
		t.Errorf("stderr does not name %s:\n%s", abs, errb.String())
	}
	if _, err := os.Stat(filepath.Join(abs, ".git", "HEAD")); err != nil {
		t.Errorf("no repository in %s: %v", abs, err)
	}
}
