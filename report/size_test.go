package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formula-code/template-verify/checks"
)

// bigReport has two large diffs and findings with large details, all with
// multi-byte text.
func bigReport() *Report {
	r := failingRender()
	r.Results[0].Changes[0].Diff = bigDiff(3000)
	for i := range r.Results[0].Findings {
		r.Results[0].Findings[i].Details = strings.Repeat("détail ✓ ``` 日本\n", 500+i*100)
	}
	return r
}

// tablesWhole checks that every table row has as many cells as the
// header, so no cut broke a table.
func tablesWhole(t *testing.T, md string) {
	t.Helper()
	cells := func(l string) int {
		return len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(l, -1)) - 1
	}
	want := -1
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		if want < 0 {
			want = cells(l)
			continue
		}
		if got := cells(l); got != want {
			t.Errorf("table row with %d cells, header has %d: %q", got, want, l)
		}
	}
}

func TestSizeLimitCutsLargestFirst(t *testing.T) {
	t.Parallel()
	r := bigReport()
	full, err := r.MarkdownLimit(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= MaxCommentBytes {
		t.Fatalf("the fixture is too small to test the limit: %d bytes", len(full))
	}
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if len(md) > MaxCommentBytes {
		t.Fatalf("comment is %d bytes, limit %d", len(md), MaxCommentBytes)
	}
	lintClean(t, md)
	tablesWhole(t, md)
	if !utf8.ValidString(md) {
		t.Fatal("the cut comment is not valid UTF-8")
	}
	// The largest part is the 3,000-line diff: it is cut; the small diff
	// of final.md.j2 stays whole.
	if !strings.Contains(md, "The comment leaves out parts to stay within the size limit of 65,536 bytes.") {
		t.Errorf("no note on the cut")
	}
	if !strings.Contains(md, "`src/datasmith/harbor_adapter/template/tests/test.sh`") || !regexp.MustCompile(`(Cut|Shortened): the rendered diff of `+"`"+`src/datasmith/harbor_adapter/template/tests/test.sh`+"`").MatchString(md) {
		t.Errorf("the note does not name the cut diff:\n%s", md[strings.Index(md, "## Notes"):])
	}
	if !strings.Contains(md, "+Do not edit benchmarks or tests.") {
		t.Errorf("the small diff is cut too")
	}
	// Everything else is still there.
	for _, s := range []string{"## Purpose", "## Changes", "| pytest | 🚫 not run |", "The command `template-verify run"} {
		if !strings.Contains(md, s) {
			t.Errorf("the cut comment lost %q", s)
		}
	}
}

// exactReport returns a report whose full comment is exactly size bytes,
// by padding a diff of multi-byte text with ASCII.
func exactReport(t *testing.T, size int) *Report {
	t.Helper()
	r := failingRender()
	diff := bigDiff(1000)
	r.Results[0].Changes[0].Diff = diff
	md, err := r.MarkdownLimit(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	pad := size - len(md)
	if pad < 0 {
		t.Fatalf("the fixture is %d bytes, more than %d", len(md), size)
	}
	r.Results[0].Changes[0].Diff = diff + "+" + strings.Repeat("x", pad-5) // a line in the item: 3 spaces, "+", the x, a newline + "\n"
	md, err = r.MarkdownLimit(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(md) != size {
		t.Fatalf("padded comment is %d bytes, want %d", len(md), size)
	}
	return r
}

func TestSizeLimitEdge(t *testing.T) {
	t.Parallel()
	// At the limit: nothing is cut.
	r := exactReport(t, MaxCommentBytes)
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if len(md) != MaxCommentBytes || strings.Contains(md, "size limit") {
		t.Errorf("at the limit: %d bytes, cut note %v", len(md), strings.Contains(md, "size limit"))
	}
	if n := utf8.RuneCountInString(md); n >= len(md) {
		t.Errorf("the fixture has no multi-byte text: %d runes, %d bytes", n, len(md))
	}
	lintClean(t, md)

	// One byte over: the diff is shortened, with a note.
	r = exactReport(t, MaxCommentBytes+1)
	md, err = r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if len(md) > MaxCommentBytes {
		t.Errorf("one over: %d bytes", len(md))
	}
	if !strings.Contains(md, "Shortened: the rendered diff of `src/datasmith/harbor_adapter/template/tests/test.sh`.") ||
		!regexp.MustCompile(`The diff above shows the first [0-9,]+ of 1,004 lines, to fit the size limit\.`).MatchString(md) {
		t.Errorf("one over: no note on the shortened diff:\n%s", md[strings.LastIndex(md, "</details>"):])
	}
	lintClean(t, md)
	tablesWhole(t, md)
	if !utf8.ValidString(md) {
		t.Error("not valid UTF-8")
	}
}

// TestSizeLimitSweep cuts the same report to many limits: every result
// fits, parses as the house format, and keeps its tables whole.
func TestSizeLimitSweep(t *testing.T) {
	t.Parallel()
	r := bigReport()
	smallest := 0
	for limit := 60000; limit >= 1000; limit -= 1500 {
		md, err := r.MarkdownLimit(limit)
		if err != nil {
			smallest = limit
			if !strings.Contains(err.Error(), "after every cut") {
				t.Errorf("limit %d: %v", limit, err)
			}
			break
		}
		if len(md) > limit {
			t.Errorf("limit %d: %d bytes", limit, len(md))
		}
		if ps := lintProblems(md); ps != "" {
			t.Errorf("limit %d:\n%s", limit, ps)
		}
		tablesWhole(t, md)
	}
	t.Logf("the smallest limit that fails: %d bytes (0: none down to 1,000)", smallest)
}

func lintProblems(md string) string {
	var b strings.Builder
	for _, p := range housestyleLint(md) {
		b.WriteString(p + "\n")
	}
	return b.String()
}

// TestSizeLimitManyFindings has thousands of findings without details:
// the list of findings is halved until it fits.
func TestSizeLimitManyFindings(t *testing.T) {
	t.Parallel()
	r := failingRender()
	var fs []checks.Finding
	for i := range 5000 {
		fs = append(fs, checks.Finding{Path: "tests/tëst.sh", Line: i + 1, Level: checks.LevelWarning, Message: fmt.Sprintf("Line %d has a tab.", i+1)})
	}
	r.Results[0].Findings = fs
	var rows [][]string
	for i := range 3000 {
		rows = append(rows, []string{fmt.Sprintf("scenario %d", i), "match", "none"})
	}
	r.Results[1].Tables[0].Rows = rows
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if len(md) > MaxCommentBytes {
		t.Fatalf("%d bytes", len(md))
	}
	lintClean(t, md)
	tablesWhole(t, md)
	m := regexp.MustCompile(`Cut: ([0-9,]+) of 5,000 findings of the render check\.`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no note on the cut findings")
	}
	shown := strings.Count(md, "` warning: Line ")
	if want := fmt.Sprintf("%s more findings are cut to fit the size limit.", thousands(5000-shown)); !strings.Contains(md, want) || m[1] != thousands(5000-shown) {
		t.Errorf("shown %d findings; note %q; want %q", shown, m[0], want)
	}
}

func TestSizeLimitTooSmall(t *testing.T) {
	t.Parallel()
	_, err := allPass().MarkdownLimit(100)
	if err == nil || !strings.Contains(err.Error(), "above the limit of 100 bytes") {
		t.Fatalf("err = %v", err)
	}
}

func BenchmarkMarkdown(b *testing.B) {
	r := allPass()
	for b.Loop() {
		if _, err := r.Markdown(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkdownCut renders a report of about 1 MB that the limit cuts.
func BenchmarkMarkdownCut(b *testing.B) {
	r := bigReport()
	for b.Loop() {
		if _, err := r.Markdown(); err != nil {
			b.Fatal(err)
		}
	}
}
