package report

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/internal/housestyle"
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/internal/markdown/markdowntest"
)

// runResult is a failing render check with one of everything.
func runResult() checks.Result {
	return checks.Result{
		Check: "render", Conclusion: checks.Failure, Title: "1 of 4 renders fails bash -n",
		Summary: "The head renders test.sh with a syntax error when run_pytest is true.",
		Findings: append(checktest.Findings(1), checks.Finding{Path: "templates/test.sh", Level: checks.LevelWarning,
			Title: "<b>html</b>", Message: "a `tick` | pipe", Details: "```\nfence inside\n```"}),
		Figures:  []checks.Figure{{Label: "renders", Value: "4", Command: "template-verify run --only render"}},
		Tables:   []checks.Table{{Title: "Renders", Header: []string{"vars", "bash -n"}, Rows: [][]string{{"run_pytest=true", "fails"}, {"run_pytest=false", "passes"}}}},
		Changes:  []checks.Change{{Path: "templates/test.sh", Status: "modified", Sets: 2, AddedPerSet: []int{4}, RemovedPerSet: []int{1}, SameSets: 1, FirstAdded: "y", FirstRemoved: "x", Added: 4, Removed: 1, Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}},
		Notes:    []string{"The Jinja2 cross-check did not run."},
		Details:  "bash: line 12: syntax error",
		Duration: 1200 * time.Millisecond,
	}
}

func TestCheckRunGolden(t *testing.T) {
	t.Parallel()
	out := CheckRun(runResult(), "template-verify run --base main --head feature", 0)
	var anns []string
	for _, a := range out.Annotations {
		anns = append(anns, fmt.Sprintf("%s:%d-%d %s %q %q", a.Path, a.StartLine, a.EndLine, a.Level, a.Title, a.Message))
	}
	got := "# title\n" + out.Title + "\n\n# summary\n" + out.Summary + "\n\n# text\n" + out.Text + "\n\n# annotations\n" + strings.Join(anns, "\n") + "\n"
	goldenFile(t, "checkrun.golden", got)
}

// TestOneFindingOneText: a finding reads the same in the comment and in
// the check run's text, with no broken bold and no stray period.
func TestOneFindingOneText(t *testing.T) {
	t.Parallel()
	const want = "`a.sh:3` failure: **x \\*\\* y.** Ends with colon."
	for _, tc := range []struct {
		title, message, want string
	}{
		{"x ** y.", "Ends with colon:", want},
		{"x ** y", "Ends with colon.", want},
		{"keeps `a*b`", "As code", "`a.sh:3` failure: **keeps `a*b`.** As code."},
		{"Same", "Same", "`a.sh:3` failure: Same."},
	} {
		f := checks.Finding{Path: "a.sh", Line: 3, Level: checks.LevelFailure, Title: tc.title, Message: tc.message}
		res := checks.Result{Check: "render", Conclusion: checks.Failure, Findings: []checks.Finding{f}}
		r := &Report{Results: []checks.Result{res}, Overall: checks.Failure}
		md, err := r.Markdown()
		if err != nil {
			t.Fatal(err)
		}
		text := CheckRun(res, "", 0).Text
		for name, doc := range map[string]string{"comment": md, "check run": text} {
			if !strings.Contains(doc, "\n- "+tc.want+"\n") && !strings.HasSuffix(doc, "\n"+tc.want) && !strings.Contains(doc, "\n"+tc.want+"\n") {
				t.Errorf("%s of %q / %q lacks the line %q:\n%s", name, tc.title, tc.message, tc.want, doc)
			}
			if strings.Contains(doc, ":.") || strings.Contains(doc, "** y.**") {
				t.Errorf("%s has a stray period or broken bold:\n%s", name, doc)
			}
		}
	}
}

func TestCheckRunWithinLimits(t *testing.T) {
	t.Parallel()
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
		Changes: []checks.Change{{Path: "t.sh", Status: "modified", Sets: 1, AddedPerSet: []int{1}, RemovedPerSet: []int{1}, Diff: big}},
	}
	out := CheckRun(res, "template-verify run --base main --head x", 0)
	if n := utf8.RuneCountInString(out.Title); n != MaxTitleChars {
		t.Errorf("title has %d characters", n)
	}
	if len(out.Summary) > MaxOutputBytes || len(out.Text) > MaxOutputBytes {
		t.Errorf("summary %d bytes, text %d bytes", len(out.Summary), len(out.Text))
	}
	if !strings.Contains(out.Text, "The cut leaves out the end of one finding, ") || !strings.Contains(out.Text, " more findings, 1 table, 1 change and the details.") {
		t.Errorf("text note: %q", out.Text[max(0, len(out.Text)-400):])
	}
	if len(out.Annotations) != 300 {
		t.Errorf("%d annotations, want 300", len(out.Annotations))
	}
	for _, a := range out.Annotations {
		if len(a.Message) > MaxAnnotationBytes || utf8.RuneCountInString(a.Title) > MaxTitleChars {
			t.Fatalf("annotation message %d bytes, title %d characters", len(a.Message), utf8.RuneCountInString(a.Title))
		}
	}
	for _, md := range []string{out.Text, out.Summary} {
		if bad := markdown.Broken(md); bad != "" {
			t.Error(bad)
		}
	}
}

func TestTextAtTheLimit(t *testing.T) {
	t.Parallel()
	// One block of exactly 65,535 bytes is not cut; one byte more is.
	lead := "### Details\n\n```text\n"
	tail := "\n```"
	for _, extra := range []int{0, 1} {
		body := strings.Repeat("x", MaxOutputBytes-len(lead)-len(tail)+extra)
		out := CheckRun(checks.Result{Check: "c", Conclusion: checks.Success, Details: body}, "", 0)
		if len(out.Text) > MaxOutputBytes {
			t.Fatalf("extra %d: %d bytes", extra, len(out.Text))
		}
		if cut := strings.Contains(out.Text, "**Cut:**"); cut != (extra == 1) {
			t.Errorf("extra %d: cut %v", extra, cut)
		}
	}
}

// TestUnannotated: past the annotation limit, findings keep their place in
// the text, and the text says how many have no annotation.
func TestUnannotated(t *testing.T) {
	t.Parallel()
	out := CheckRun(checks.Result{Check: "render", Conclusion: checks.Failure, Findings: checktest.Findings(12)}, "", 10)
	if len(out.Annotations) != 10 || out.Unannotated != 2 {
		t.Fatalf("%d annotations, %d unannotated", len(out.Annotations), out.Unannotated)
	}
	if !strings.Contains(out.Text, "at most 10 annotations, so 2 findings with a file and line have no annotation") || strings.Count(out.Text, "Syntax error") != 12 {
		t.Errorf("text:\n%s", out.Text)
	}
}

func TestAnnotations(t *testing.T) {
	t.Parallel()
	fs := []checks.Finding{
		{Path: "a.sh", Line: 3, Level: checks.LevelNotice, Message: "n"},
		{Path: "b.sh", Line: 1, EndLine: 0, Level: checks.LevelFailure, Message: "f"},
		{Path: "c.sh", Line: 0, Level: checks.LevelFailure, Message: "no line"},
		{Path: "/abs.sh", Line: 2, Level: checks.LevelFailure, Message: "absolute"},
		{Path: "../up.sh", Line: 2, Level: checks.LevelFailure, Message: "outside"},
		{Path: "./d.sh", Line: 5, EndLine: 9, Level: checks.LevelWarning, Title: "only a title"},
		{Path: "e.sh", Line: 1, Level: "odd", Message: "e"},
	}
	var got []string
	for _, a := range annotations(fs) {
		got = append(got, fmt.Sprintf("%s:%d-%d %s %s", a.Path, a.StartLine, a.EndLine, a.Level, a.Message))
	}
	want := "b.sh:1-1 failure f|d.sh:5-9 warning only a title|a.sh:3-3 notice n|e.sh:1-1 notice e"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

func TestRunOutputsOfAStoppedRun(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300)
	for _, tc := range []struct {
		name    string
		out     RunOutput
		title   string
		summary string
	}{
		{"running", Running("render", "0123456789abcdef0123"), "The check is running", "template-verify runs the render check on `0123456789ab`."},
		{"aborted", Aborted("The clone failed\nat once", "exit 128"), "The clone failed at once", "exit 128"},
		{"aborted, long title", Aborted(long, "x"), strings.Repeat("é", MaxTitleChars-1) + "…", "x"},
		{"publishing stopped", PublishStopped(fmt.Errorf("POST: 502 <html>")), "Publishing stopped", "template-verify could not create all its check runs: POST: 502 &lt;html>"},
		{"refused", Refused("t", fmt.Errorf("422 @octo")), "t", "GitHub did not take the full output of this check run. The pull-request comment and the job log show the report. The error: 422 @\u200bocto"},
	} {
		if tc.out.Title != tc.title || tc.out.Summary != tc.summary {
			t.Errorf("%s: %q / %q, want %q / %q", tc.name, tc.out.Title, tc.out.Summary, tc.title, tc.summary)
		}
	}
	if r := NoResult("pytest"); r.Conclusion != checks.NotRun || !strings.Contains(CheckRun(r, "", 0).Summary, "no result for the pytest check") {
		t.Errorf("no result: %+v", r)
	}
}

// TestHostileCheckRun sends text a pull request controls through the
// check-run output: summary and text are markdown, title and annotations
// are plain text.
func TestHostileCheckRun(t *testing.T) {
	t.Parallel()
	res := hostileReport().Results[0]
	out := CheckRun(res, "template-verify run", 0)
	for _, tc := range []struct {
		name     string
		text     string
		markdown bool
	}{
		{"summary", out.Summary, true},
		{"text", out.Text, true},
		{"title", out.Title, false},
	} {
		bad := markdowntest.UnsafeAnywhere(tc.text)
		if tc.markdown {
			bad = markdowntest.Unsafe(tc.text, false)
		}
		for _, b := range bad {
			t.Errorf("%s: %s", tc.name, b)
		}
	}
	var withLine int
	for _, f := range res.Findings {
		if _, ok := repoPath(f.Path); ok && f.Line > 0 {
			withLine++
		}
	}
	if len(out.Annotations) != withLine {
		t.Fatalf("%d annotations, want %d", len(out.Annotations), withLine)
	}
	for _, a := range out.Annotations {
		for _, s := range []string{a.Path, a.Title, a.Message, a.Details} {
			for _, b := range markdowntest.UnsafeAnywhere(s) {
				t.Errorf("%s in %q", b, s)
			}
		}
	}
}

// TestRunTextsFollowHouseStyle lints the check-run outputs, gate
// summaries and cut notes for sentence length, banned words and host
// names. The section rules are for the comment only.
func TestRunTextsFollowHouseStyle(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, r := range failingRender().Results {
		o := CheckRun(r, "template-verify run", 0)
		texts = append(texts, o.Summary, o.Text)
	}
	big := checks.Result{Check: "render", Conclusion: checks.Failure, Findings: checktest.Findings(3000), Details: strings.Repeat("x\n", 40000)}
	o := CheckRun(big, "template-verify run", 10)
	texts = append(texts, o.Summary, o.Text[strings.LastIndex(o.Text, "> **Cut:**"):])
	for _, base := range []string{"main", "feature", ""} {
		for _, rs := range [][]checks.Result{nil, failingRender().Results, {{Check: "render", Conclusion: checks.Success}}} {
			g := GateRun(checks.GateOf(rs, checks.Gate{BaseRef: base, Branches: []string{"main", "release/*"}}))
			texts = append(texts, g.Title+".", g.Summary)
		}
	}
	texts = append(texts, Running("render", "abc").Summary)
	cut := CommentBody(strings.Repeat("line\n", 70000))
	texts = append(texts, cut[strings.LastIndex(cut, "> **Cut:**"):])
	for _, s := range texts {
		for _, p := range housestyle.Lint(s) {
			if p.Rule == housestyle.RuleSection {
				continue
			}
			t.Errorf("%s\nin: %.300s", p, s)
		}
	}
}

func TestCommentBody(t *testing.T) {
	t.Parallel()
	if got := CommentBody("hello"); got != Marker+"\nhello" {
		t.Errorf("no marker first: %q", got)
	}
	long := CommentBody(strings.Repeat("€ line\n", 20000))
	if n := len(long); n > MaxCommentBytes || !IsComment(long) {
		t.Errorf("%d bytes, comment %v", n, IsComment(long))
	}
}

// BenchmarkCheckRun builds the output of a check with 3,000 findings,
// which is cut to 65,535 bytes.
func BenchmarkCheckRun(b *testing.B) {
	fs := checktest.Findings(3000)
	for i := range fs {
		fs[i].Details = strings.Repeat("details ", 40)
	}
	res := checks.Result{Check: "render", Conclusion: checks.Failure, Findings: fs, Details: strings.Repeat("x\n", 10000)}
	b.ReportAllocs()
	for b.Loop() {
		if out := CheckRun(res, "template-verify run", 0); len(out.Text) > MaxOutputBytes {
			b.Fatal("over the limit")
		}
	}
}

// BenchmarkCommentBody cuts a 300,000-character comment to 65,536.
func BenchmarkCommentBody(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(Marker + "\n| a | b |\n| --- | --- |\n")
	for i := range 12000 {
		fmt.Fprintf(&sb, "| row %d | ü |\n", i)
	}
	body := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		CommentBody(body)
	}
}
