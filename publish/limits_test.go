package publish

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

func TestCutChars(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		runes int
		cut   bool
	}{
		{"255 ASCII", strings.Repeat("a", 255), 255, false},
		{"256 ASCII", strings.Repeat("a", 256), 255, true},
		{"255 two-byte", strings.Repeat("é", 255), 255, false},
		{"256 two-byte", strings.Repeat("é", 256), 255, true},
		{"256 four-byte", strings.Repeat("😀", 256), 255, true},
		{"short", "ok", 2, false},
		{"invalid UTF-8 counts as U+FFFD", "a\xffb", 3, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CutChars(tc.in, MaxTitleChars)
			if n := utf8.RuneCountInString(got); n != tc.runes || !utf8.ValidString(got) {
				t.Errorf("%d runes (valid %v), want %d", n, utf8.ValidString(got), tc.runes)
			}
			if strings.HasSuffix(got, ellipsis) != tc.cut {
				t.Errorf("ellipsis %v, want %v", strings.HasSuffix(got, ellipsis), tc.cut)
			}
		})
	}
}

func TestCutBytesOnRuneBoundary(t *testing.T) {
	for _, r := range []string{"a", "é", "€", "😀"} {
		for _, n := range []int{MaxOutputBytes - 1, MaxOutputBytes, MaxOutputBytes + 1, MaxOutputBytes + 2} {
			in := strings.Repeat(r, n/len(r)) + strings.Repeat("a", n%len(r))
			got := CutBytes(in, MaxOutputBytes, " [cut]")
			if len(got) > MaxOutputBytes || !utf8.ValidString(got) {
				t.Errorf("%q x %d bytes: got %d bytes, valid %v", r, n, len(got), utf8.ValidString(got))
			}
			if (len(in) <= MaxOutputBytes) != (got == in) {
				t.Errorf("%q x %d bytes: cut %v", r, n, got != in)
			}
		}
	}
}

func TestCutMarkdownBytes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cut  bool
	}{
		{"exactly 65,535 bytes", strings.Repeat("a", 65534) + "\n", false},
		{"65,536 bytes", strings.Repeat("a", 65535) + "\n", true},
		{"lines of 3-byte runes at the limit", strings.Repeat(strings.Repeat("€", 20)+"\n", 1073) + strings.Repeat("€", 20) + strings.Repeat("a", 22), false},
		{"lines of 3-byte runes over", strings.Repeat(strings.Repeat("€", 20)+"\n", 2000), true},
		{"one long line of 4-byte runes", strings.Repeat("😀", 20000), true},
		{"a fence over the limit", "Intro.\n\n```text\n" + strings.Repeat("ü line\n", 20000) + "```\n\nAfter.\n", true},
		{"a table over the limit", "Rows:\n\n| a | b |\n| --- | --- |\n" + strings.Repeat("| ä | b |\n", 8000), true},
		{"details over the limit", "<details><summary>x</summary>\n\n````diff\n" + strings.Repeat("+ ```\n", 20000) + "````\n\n</details>\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.cut && len(tc.in) != MaxOutputBytes {
				t.Fatalf("test input is %d bytes", len(tc.in))
			}
			got, cut := cutMarkdown(tc.in, MaxOutputBytes, inBytes)
			if cut != tc.cut {
				t.Fatalf("cut %v, want %v", cut, tc.cut)
			}
			if len(got) > MaxOutputBytes || !utf8.ValidString(got) {
				t.Fatalf("%d bytes, valid %v", len(got), utf8.ValidString(got))
			}
			if !cut {
				if got != tc.in {
					t.Error("changed without a cut")
				}
				return
			}
			if !strings.Contains(got, "limit of 65,535 bytes. The cut leaves out the last") {
				t.Errorf("no note: %q", got[max(0, len(got)-200):])
			}
			if len(got) < MaxOutputBytes-1000 {
				t.Errorf("kept only %d bytes", len(got))
			}
			checkMarkdown(t, got)
		})
	}
}

func TestCutPrefixTableHeader(t *testing.T) {
	md := "Intro line.\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"
	// A budget that reaches just past the header must not keep it alone.
	kept, pos := cutPrefix(md, len("Intro line.\n| a | b |\n")+2, inBytes)
	if kept != "Intro line.\n" || pos != len("Intro line.\n") {
		t.Errorf("kept %q", kept)
	}
	kept, _ = cutPrefix(md, len("Intro line.\n| a | b |\n| --- | --- |\n")+2, inBytes)
	if !strings.HasSuffix(kept, "| --- | --- |\n") {
		t.Errorf("kept %q", kept)
	}
}

func TestOutputWithinLimitsOnGitHub(t *testing.T) {
	big := strings.Repeat("ü", 40000) // 80,000 bytes
	var fs []checks.Finding
	for i := range 300 {
		msg := strings.Repeat("m", 300)
		if i < 2 {
			msg = strings.Repeat("m", 70000)
		}
		fs = append(fs, checks.Finding{Path: "t.sh", Line: i + 1, Level: checks.LevelWarning,
			Title: strings.Repeat("T", 300), Message: msg, Details: "diff\n" + strings.Repeat("ß", 500)})
	}
	res := checks.Result{
		Check: "render", Conclusion: checks.Failure, Title: strings.Repeat("é", 256), Summary: big,
		Findings: fs, Details: big,
		Tables:  []checks.Table{{Title: "Scenarios", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}},
		Changes: []checks.Change{{Path: "t.sh", Status: "modified", Headline: "h", Diff: big}},
	}
	out := OutputOf(res, "template-verify run --base main --head x", 0)
	if n := utf8.RuneCountInString(out.Title); n != MaxTitleChars {
		t.Errorf("title has %d characters", n)
	}
	if len(out.Summary) > MaxOutputBytes || len(out.Text) > MaxOutputBytes {
		t.Errorf("summary %d bytes, text %d bytes", len(out.Summary), len(out.Text))
	}
	if !strings.Contains(out.Text, "The cut leaves out the end of one finding, ") || !strings.Contains(out.Text, " more findings, 1 table, 1 change and the details.") {
		t.Errorf("text note: %q", out.Text[max(0, len(out.Text)-400):])
	}
	for _, a := range out.Annotations {
		if len(a.Message) > MaxAnnotationBytes || utf8.RuneCountInString(a.Title) > MaxTitleChars {
			t.Fatalf("annotation message %d bytes, title %d characters", len(a.Message), utf8.RuneCountInString(a.Title))
		}
	}
	checkMarkdown(t, out.Text)
	checkMarkdown(t, out.Summary)

	// The fake GitHub takes all of it.
	e := setup(t, false)
	rep := &report.Report{Results: []checks.Result{res}, Command: "template-verify run"}
	if _, err := e.pub.Publish(context.Background(), rep, Options{Gate: mainGate}); err != nil {
		t.Fatal(err)
	}
	run := e.srv.CheckRuns()[0]
	if len(run.Annotations) != 300 || run.Status != "completed" {
		t.Errorf("%d annotations, status %s", len(run.Annotations), run.Status)
	}
}

func TestTextAtTheLimit(t *testing.T) {
	// One block of exactly 65,535 bytes is not cut; one byte more is.
	lead := "### Details\n\n```text\n"
	tail := "\n```"
	for _, extra := range []int{0, 1} {
		body := strings.Repeat("x", MaxOutputBytes-len(lead)-len(tail)+extra)
		res := checks.Result{Check: "c", Conclusion: checks.Success, Details: body}
		out := OutputOf(res, "", 0)
		if len(out.Text) > MaxOutputBytes {
			t.Fatalf("extra %d: %d bytes", extra, len(out.Text))
		}
		if cut := strings.Contains(out.Text, "**Cut:**"); cut != (extra == 1) {
			t.Errorf("extra %d: cut %v", extra, cut)
		}
	}
}

func TestAnnotationsOf(t *testing.T) {
	fs := []checks.Finding{
		{Path: "a.sh", Line: 3, Level: checks.LevelNotice, Message: "n"},
		{Path: "b.sh", Line: 1, EndLine: 0, Level: checks.LevelFailure, Message: "f"},
		{Path: "c.sh", Line: 0, Level: checks.LevelFailure, Message: "no line"},
		{Path: "/abs.sh", Line: 2, Level: checks.LevelFailure, Message: "absolute"},
		{Path: "../up.sh", Line: 2, Level: checks.LevelFailure, Message: "outside"},
		{Path: "./d.sh", Line: 5, EndLine: 9, Level: checks.LevelWarning, Title: "only a title"},
		{Path: "e.sh", Line: 1, Level: "odd", Message: "e"},
	}
	got := annotationsOf(fs)
	var s []string
	for _, a := range got {
		s = append(s, fmt.Sprintf("%s:%d-%d %s %q", a.Path, a.StartLine, a.EndLine, a.Level, a.Message))
	}
	want := `[b.sh:1-1 failure "f" d.sh:5-9 warning "only a title" a.sh:3-3 notice "n" e.sh:1-1 notice "e"]`
	if fmt.Sprintf("%q", s) != fmt.Sprintf("%q", strings.Fields(strings.Trim(want, "[]"))) && fmt.Sprint(s) != want {
		t.Errorf("got %v\nwant %s", s, want)
	}
}

func TestConclusionOf(t *testing.T) {
	for in, want := range map[checks.Conclusion]string{
		checks.Success: "success", checks.Failure: "failure", checks.NotRun: "neutral",
		checks.Skipped: "skipped", checks.TimedOut: "timed_out", checks.Cancelled: "cancelled", "weird": "neutral",
	} {
		if got := ConclusionOf(in); got != want {
			t.Errorf("%s -> %s, want %s", in, got, want)
		}
	}
}

func TestOutputGolden(t *testing.T) {
	rep := sampleReport()
	res := rep.Results[0]
	res.Findings = append(res.Findings, checks.Finding{Path: "templates/test.sh", Level: checks.LevelWarning, Title: "<b>html</b>", Message: "a `tick` | pipe", Details: "```\nfence inside\n```"})
	res.Tables = []checks.Table{{Title: "Renders", Header: []string{"vars", "bash -n"}, Rows: [][]string{{"run_pytest=true", "fails"}, {"run_pytest=false", "passes"}}}}
	res.Changes = []checks.Change{{Path: "templates/test.sh", Status: "modified", Headline: "adds a restore step", Effect: "test files go back to base", Before: "agents could edit tests", Added: 4, Removed: 1, Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}}
	res.Notes = []string{"The Jinja2 cross-check did not run."}
	res.Details = "bash: line 12: syntax error"
	out := OutputOf(res, rep.Command, 0)
	var anns []string
	for _, a := range out.Annotations {
		anns = append(anns, fmt.Sprintf("%s:%d-%d %s %q %q", a.Path, a.StartLine, a.EndLine, a.Level, a.Title, a.Message))
	}
	got := "# title\n" + out.Title + "\n\n# summary\n" + out.Summary + "\n\n# text\n" + out.Text + "\n\n# annotations\n" + strings.Join(anns, "\n") + "\n"
	golden(t, "output.golden", got)
}
