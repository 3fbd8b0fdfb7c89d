package report

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/golden"
	"github.com/formula-code/template-verify/internal/housestyle"
	"github.com/formula-code/template-verify/internal/markdown"
)

// goldenFile compares got with testdata/name, or rewrites it with
// -update (internal/golden).
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			r := fx.make()
			md, err := r.Markdown()
			if err != nil {
				t.Fatal(err)
			}
			goldenFile(t, fx.name+".md.golden", md)
			goldenFile(t, fx.name+".txt.golden", r.Text())
			js, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			goldenFile(t, fx.name+".json.golden", string(js)+"\n")
		})
	}
}

// lintClean fails the test when the markdown breaks a house-format rule.
func lintClean(t *testing.T, md string) {
	t.Helper()
	if ps := housestyle.Lint(md); len(ps) > 0 {
		var b strings.Builder
		lines := strings.Split(md, "\n")
		for _, p := range ps {
			b.WriteString(p.String() + "\n")
			if p.Line-1 < len(lines) {
				b.WriteString("    " + lines[p.Line-1] + "\n")
			}
		}
		t.Errorf("the comment breaks the house format:\n%s", b.String())
	}
}

func housestyleLint(md string) []string {
	var out []string
	for _, p := range housestyle.Lint(md) {
		out = append(out, p.String())
	}
	return out
}

func TestMarkdownPassesHouseStyle(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			md, err := fx.make().Markdown()
			if err != nil {
				t.Fatal(err)
			}
			lintClean(t, md)
			if !strings.HasPrefix(md, Marker+"\n") {
				t.Errorf("the comment does not start with the marker line")
			}
			if !strings.HasSuffix(md, "\n") || strings.HasSuffix(md, "\n\n") {
				t.Errorf("the comment does not end with exactly one newline")
			}
			if strings.Contains(md, "\n\n\n") {
				t.Errorf("the comment has two blank lines in a row")
			}
		})
	}
}

// codeLines marks the lines of md that are code: fences and their bodies.
func codeLines(md string) []bool {
	lines := strings.Split(md, "\n")
	code := make([]bool, len(lines))
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		run := t[:len(t)-len(strings.TrimLeft(t, "`"))]
		switch {
		case fence != "":
			code[i] = true
			if len(run) >= len(fence) && strings.TrimSpace(t[len(run):]) == "" {
				fence = ""
			}
		case len(run) >= 3 && !strings.Contains(t[len(run):], "`"):
			// CommonMark: a backtick fence's info string has no backtick.
			code[i], fence = true, run
		}
	}
	return code
}

// sectionsOf lists the "## " headings of md outside code fences.
func sectionsOf(md string) []string {
	var out []string
	code := codeLines(md)
	for i, l := range strings.Split(md, "\n") {
		if !code[i] && strings.HasPrefix(l, "## ") {
			out = append(out, strings.TrimPrefix(l, "## "))
		}
	}
	return out
}

func TestSectionsLeftOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    *Report
		want []string
	}{
		{"all-pass", allPass(), []string{"Purpose", "How it works", "Changes", "Verification", "Notes"}},
		{"empty-plan", emptyPlan(), []string{"Purpose", "Verification", "Notes"}},
		{"no changes, no notes, no command", func() *Report {
			r := allPass()
			r.Results = []checks.Result{restorePass()}
			r.ConfigSource, r.Command = "", ""
			return r
		}(), []string{"Purpose", "How it works", "Verification"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, err := tt.r.Markdown()
			if err != nil {
				t.Fatal(err)
			}
			if got := sectionsOf(md); !slices.Equal(got, tt.want) {
				t.Errorf("sections %q, want %q", got, tt.want)
			}
			lintClean(t, md)
		})
	}
}

// sentences counts the sentences of a paragraph.
func sentences(p string) int {
	n := 0
	for _, w := range strings.Fields(p) {
		if strings.HasSuffix(w, ".") {
			n++
		}
	}
	return n
}

func TestPurposeSentences(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		p := purpose(fx.make())
		if n := sentences(p); n < 2 || n > 4 {
			t.Errorf("%s: Purpose has %d sentences, want 2 to 4: %q", fx.name, n, p)
		}
	}
	many := allPass()
	many.Templates = append(many.Templates, many.Templates...)
	if p := purpose(many); !strings.Contains(p, "This PR changes 6 templates.") {
		t.Errorf("Purpose for 6 templates: %q", p)
	}
	if p := purpose(emptyPlan()); !strings.Contains(p, "nothing to verify") {
		t.Errorf("Purpose of an empty plan: %q", p)
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	res := func(cs ...checks.Conclusion) []checks.Result {
		var out []checks.Result
		for i, c := range cs {
			out = append(out, checks.Result{Check: "c" + itoa(i), Conclusion: c})
		}
		return out
	}
	tests := []struct {
		results []checks.Result
		want    string
	}{
		{res(checks.Success), "The check passed."},
		{res(checks.Success, checks.Success), "All 2 checks passed."},
		{res(checks.Success, checks.Skipped), "The result is a pass: 1 of 2 checks passed, and 1 had nothing to verify."},
		{res(checks.Skipped, checks.Skipped), "The result is not a pass, because no check passed: they had nothing to verify."},
		{res(checks.Failure), "The result is a failure: the check failed."},
		{res(checks.Success, checks.TimedOut, checks.Failure), "The result is a failure: 2 of 3 checks failed."},
		{res(checks.Success, checks.NotRun), "The result is not a pass, because 1 of 2 checks did not run."},
		{res(checks.Success, checks.Cancelled), "The result is not a pass, because 1 of 2 checks did not finish."},
		{res(checks.NotRun), "The result is not a pass, because the check did not run."},
		{nil, "The result is not a pass, because no check ran."},
	}
	for _, tt := range tests {
		r := &Report{Results: tt.results, Overall: checks.Overall(tt.results)}
		if got := verdict(r); got != tt.want {
			t.Errorf("%v: verdict %q, want %q", tt.results, got, tt.want)
		}
		if r.Overall != checks.Success && strings.Contains(verdict(r), "passed.") {
			t.Errorf("overall %s reads as passed: %q", r.Overall, verdict(r))
		}
	}
}

func TestWord(t *testing.T) {
	t.Parallel()
	for _, c := range []checks.Conclusion{checks.Failure, checks.NotRun, checks.Skipped, checks.TimedOut, checks.Cancelled, "", "neutral", "stale"} {
		if w := Word(c); strings.Contains(w, "pass") {
			t.Errorf("Word(%q) = %q", c, w)
		}
	}
	if Word(checks.Success) != "passed" {
		t.Errorf("Word(Success) = %q", Word(checks.Success))
	}
}

// TestNotRunNeverPassed checks every place a NotRun check or verdict shows
// in the three formats.
func TestNotRunNeverPassed(t *testing.T) {
	t.Parallel()
	r := notRun()
	if r.Overall != checks.NotRun {
		t.Fatalf("fixture overall %q", r.Overall)
	}
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"restore", "pytest"} {
		row := regexp.MustCompile(`(?m)^\| ` + name + ` \|.*$`).FindString(md)
		if row == "" || !strings.Contains(row, "| "+markNotRun+" not run |") || strings.Contains(row, "passed") {
			t.Errorf("markdown table row of %s: %q", name, row)
		}
		head := regexp.MustCompile(`(?m)^(<details><summary>)?. ` + name + `: .*$`).FindString(md)
		if !strings.Contains(head, markNotRun+" "+name+": not run") {
			t.Errorf("check heading of %s: %q", name, head)
		}
		if !strings.Contains(md, "- The "+name+" check did not run: ") {
			t.Errorf("no note says why %s did not run", name)
		}
	}
	if first := strings.SplitN(md, "\n", 3)[1]; !strings.HasPrefix(first, "**"+markNotRun+" Not run** at `222222222222`. ") || !strings.Contains(first, "not a pass") {
		t.Errorf("first line %q, want the verdict not run", first)
	}
	purpose := regexp.MustCompile(`(?s)## Purpose\n\n(.*?)\n\n`).FindStringSubmatch(md)
	if purpose == nil || strings.Contains(purpose[1], "passed") {
		t.Errorf("Purpose: %q", purpose)
	}

	text := r.Text()
	for _, name := range []string{"restore", "pytest"} {
		line := regexp.MustCompile(`(?m)^  ` + name + ` .*$`).FindString(text)
		if !strings.Contains(line, " not run ") || strings.Contains(line, "passed") {
			t.Errorf("text line of %s: %q", name, line)
		}
	}
	if !strings.Contains(text, "result:     NOT RUN\n") {
		t.Errorf("text result line is not NOT RUN:\n%s", text)
	}

	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Overall string `json:"overall"`
		Results []struct {
			Check      string `json:"check"`
			Conclusion string `json:"conclusion"`
		} `json:"results"`
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if got.Overall != "not_run" || got.Results[1].Conclusion != "not_run" || got.Results[2].Conclusion != "not_run" {
		t.Errorf("JSON conclusions: %+v", got)
	}
}

func TestJSONFields(t *testing.T) {
	t.Parallel()
	js, err := emptyPlan().JSON()
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`(?m)^  "([a-z_]+)":`).FindAllStringSubmatch(string(js), -1)
	var names []string
	for _, k := range keys {
		names = append(names, k[1])
	}
	want := []string{"schema_version", "overall", "repo", "base", "head", "merge_base", "templates", "results", "notes", "command"}
	if !slices.Equal(names, want) {
		t.Errorf("top-level keys %q, want %q", names, want)
	}
	if !strings.Contains(string(js), `"templates": []`) || !strings.Contains(string(js), `"results": []`) {
		t.Errorf("empty lists are not []:\n%s", js)
	}
}

func TestTextFindings(t *testing.T) {
	t.Parallel()
	text := failingRender().Text()
	want := root + "tests/test.sh:57: failure: bash -n: The rendered script is not valid bash for run_pytest=false: syntax error near unexpected token fi.\n"
	if !strings.Contains(text, "\n"+want) {
		t.Errorf("text has no finding line %q:\n%s", want, text)
	}
	if strings.Contains(text, "| --- |") || regexp.MustCompile(`(?m)^\s*\|`).MatchString(text) {
		t.Errorf("text has a markdown table:\n%s", text)
	}
}

func TestFences(t *testing.T) {
	t.Parallel()
	md, err := backticks().Markdown()
	if err != nil {
		t.Fatal(err)
	}
	// The details hold a run of four backticks, so the fence has five.
	if !strings.Contains(md, "\n  `````text\n") {
		t.Errorf("the details fence is not five backticks:\n%s", md)
	}
	// The diff holds three, so its fence has four.
	if !strings.Contains(md, "\n   ````diff\n") {
		t.Errorf("the diff fence is not four backticks:\n%s", md)
	}
	if !strings.Contains(md, "日本語") || !strings.Contains(md, "ünïcode ✓") {
		t.Errorf("non-ASCII text is lost")
	}
}

func TestCode(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"a b", "`a b`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"a``b", "```a``b```"},
		{"", ""},
		{"two\nlines", "`two lines`"},
	}
	for _, tt := range tests {
		if got := code(tt.in); got != tt.want {
			t.Errorf("code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeStart(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"## x", `\## x`},
		{"- x", `\- x`},
		{"12. x", `12\. x`},
		{"1) x", `1\) x`},
		{"Plain.", "Plain."},
		{"2024 was a year.", "2024 was a year."},
	}
	for _, tt := range tests {
		if got := escapeStart(tt.in); got != tt.want {
			t.Errorf("escapeStart(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFileTree(t *testing.T) {
	t.Parallel()
	got := fileTree(baseReport().Templates)
	want := `src/datasmith/
├── github/templates/
│   └── final.md.j2  (modified)
└── harbor_adapter/template/
    ├── environment/
    │   └── Dockerfile  (included file changed: environment/restore_paths.inc)
    └── tests/
        └── test.sh  (modified)
`
	if got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	if got := fileTree(backticks().Templates[:1]); !strings.Contains(got, "fïnal.md.j2  (renamed from src/datasmith/github/templates/old/final.md.j2)") {
		t.Errorf("renamed tree:\n%s", got)
	}
}

func TestEscapeHTML(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"a <sha> b", "a &lt;sha> b"},
		{"keep `<sha>` in code", "keep `<sha>` in code"},
		{"``a ` <b>`` <c>", "``a ` <b>`` &lt;c>"},
		{"open ` <x>", "open \\` &lt;x>"},
		{"<details>", "&lt;details>"},
	}
	for _, tt := range tests {
		if got := markdown.Escape(tt.in); got != tt.want {
			t.Errorf("markdown.Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHostileText puts markdown structure into every string a check
// provides. The comment keeps its own structure: the same sections, closed
// fences, whole tables.
func TestHostileText(t *testing.T) {
	t.Parallel()
	evil := "x\n\n## Usage\n\n```\n</details> <!-- | a | b |\n- item\n1. step\n> quote ``` `"
	r := failingRender()
	r.Repo = evil
	r.Command = evil
	r.Notes = []string{evil, "## Notes", "- x"}
	r.Templates[0].Path = evil
	for i := range r.Results {
		res := &r.Results[i]
		res.Check = evil + itoa(i)
		res.Title, res.Summary, res.Details = evil, evil+"\n\n# h1\n\n---", evil
		res.Notes = []string{evil}
		for j := range res.Findings {
			f := &res.Findings[j]
			f.Path, f.Title, f.Message, f.Details, f.Level = evil, evil, evil, evil, checks.Level(evil)
		}
		for j := range res.Figures {
			res.Figures[j] = checks.Figure{Label: evil, Value: evil, Command: evil}
		}
		for j := range res.Tables {
			res.Tables[j].Title = evil
			res.Tables[j].Header = []string{evil}
			res.Tables[j].Rows = append(res.Tables[j].Rows, []string{evil, evil, evil, evil, evil})
		}
		for j := range res.Changes {
			c := &res.Changes[j]
			c.Path, c.OldPath, c.Via, c.FirstAdded, c.FirstRemoved, c.Diff = evil, evil, []string{evil}, evil, evil, evil
		}
	}
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sectionsOf(md), []string{"Purpose", "How it works", "Changes", "Verification", "Notes"}; !slices.Equal(got, want) {
		t.Errorf("sections %q, want %q", got, want)
	}
	for _, p := range housestyle.Lint(md) {
		switch p.Rule {
		case housestyle.RuleSentenceLength, housestyle.RuleBannedWord, housestyle.RuleHostName, housestyle.RuleAIAttribution:
			// Words are the check's own; structure is the report's.
		default:
			t.Errorf("%v", p)
		}
	}
	tablesWhole(t, md)
	code := codeLines(md)
	for i, l := range strings.Split(md, "\n") {
		// markdown.Escape changes a "<" outside code spans only: a comment
		// opener that it changes is live.
		if i > 0 && !code[i] && strings.Count(markdown.Escape(l), "&lt;!--") > strings.Count(l, "&lt;!--") {
			t.Errorf("line %d: a comment opener from the input is live: %q", i+1, l)
		}
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "- ## ") || strings.HasPrefix(l, "- - ") || strings.HasPrefix(l, "- # ") {
			t.Errorf("a list item starts with markdown structure: %q", l)
		}
	}
}

// TestSkippedIsNotPassed: a skipped check reads "skipped" in every format;
// the verdict is a pass, since checks.Overall says so, but it names the
// skipped check.
func TestSkippedIsNotPassed(t *testing.T) {
	t.Parallel()
	r := skipped()
	if r.Overall != checks.Success {
		t.Fatalf("fixture overall %q", r.Overall)
	}
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| pytest | " + markSkipped + " skipped |",
		markSkipped + " pytest: skipped. No pytest suite",
		"- The pytest check is skipped: no pytest suite is triggered by the changed paths.",
		"**" + markPass + " Passed** at `222222222222`. 2 of 3 checks passed, and 1 check had nothing to verify.",
		"The run checks them with render and restore.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown has no %q", want)
		}
	}
	if line := regexp.MustCompile(`(?m)^  pytest .*$`).FindString(r.Text()); !strings.Contains(line, " skipped ") || strings.Contains(line, "passed") {
		t.Errorf("text line %q", line)
	}
	js, _ := r.JSON()
	if !strings.Contains(string(js), `"conclusion": "skipped"`) {
		t.Errorf("JSON has no skipped conclusion")
	}
}

// visibleLines counts the lines a reader sees with every <details> block
// folded: lines that are not blank, outside the body of a <details>, not
// the delimiter row of a table, and one more for each <br>.
func visibleLines(md string) int {
	n, depth := 0, 0
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		opens, closes := strings.Count(t, "<details>"), strings.Count(t, "</details>")
		if depth == 0 && t != "" && !strings.HasPrefix(t, "<!--") && !regexp.MustCompile(`^\|( --- \|)+$`).MatchString(t) {
			n += 1 + strings.Count(t, "<br>")
		}
		depth += opens - closes
	}
	return n
}

// TestCommentLeadsWithVerdict: the first visible line is the verdict, a
// failing comment shows its first cause within 5 lines, linked to its
// line at head, and a passing one fits in maxPassingLines visible lines.
func TestCommentLeadsWithVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		r           *Report
		verdict     string
		maxVisible  int
		failureLink string // the first failure's link, "" for a pass
	}{
		{"linked-pass", linkedPass(), "**✅ Passed** at [`222222222222`](https://github.com/formula-code/datasmith/commit/" + headSha + "). All 3 checks passed.", maxPassingLines, ""},
		{"linked-fail", linkedFail(), "**❌ Failed** at [`222222222222`](https://github.com/formula-code/datasmith/commit/" + headSha + "). 1 of 3 checks failed: render.", 60,
			"[`src/datasmith/harbor_adapter/template/tests/test.sh:57`](https://github.com/formula-code/datasmith/blob/" + headSha + "/src/datasmith/harbor_adapter/template/tests/test.sh#L57)"},
		{"not-run", notRun(), "**🚫 Not run** at `222222222222`.", 25, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, err := tc.r.Markdown()
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(md, "\n")
			if !strings.HasPrefix(lines[1], tc.verdict) {
				t.Errorf("line 2 is %q, want the verdict %q", lines[1], tc.verdict)
			}
			if n := visibleLines(md); n > tc.maxVisible {
				t.Errorf("%d visible lines, want at most %d", n, tc.maxVisible)
			} else {
				t.Logf("%d lines, %d visible", len(lines), n)
			}
			first := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "- "+markFail) })
			switch {
			case tc.failureLink == "" && first >= 0:
				t.Errorf("a passing comment lists a failure on line %d: %q", first+1, lines[first])
			case tc.failureLink != "" && (first < 0 || first+1 > 5):
				t.Errorf("the first failure is on line %d, want within 5", first+1)
			case tc.failureLink != "" && !strings.Contains(lines[first], tc.failureLink):
				t.Errorf("first failure %q, want the link %s", lines[first], tc.failureLink)
			}
			if strings.Contains(md, "```mermaid") {
				t.Error("the comment has a mermaid chart that repeats the table")
			}
			if tc.r.Links.Run != "" && !strings.Contains(md, "[workflow run]("+tc.r.Links.Run+")") {
				t.Error("no link to the workflow run")
			}
			lintClean(t, md)
		})
	}
}

func TestSingular(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Templates: 1 templates, 4 variable sets, 8 renders": "Templates: 1 template, 4 variable sets, 8 renders",
		"gets 1 new lines and loses 11 lines":                "gets 1 new line and loses 11 lines",
		"1 of 2 sets, 21 tests, 0.1 tests, 1 tests":          "1 of 2 sets, 21 tests, 0.1 tests, 1 test",
		"1 render problems in 1 template":                    "1 render problem in 1 template",
	} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLineLink(t *testing.T) {
	t.Parallel()
	r := &Report{Head: headSha, Links: Links{Repo: "https://github.com/o/r"}}
	for _, tc := range []struct {
		f    checks.Finding
		want string
	}{
		{checks.Finding{Path: "a b/c#d.sh", Line: 3, EndLine: 5}, "[`a b/c#d.sh:3-5`](https://github.com/o/r/blob/" + headSha + "/a%20b/c%23d.sh#L3-L5)"},
		{checks.Finding{Path: "x(1).sh", Line: 2}, "[`x(1).sh:2`](https://github.com/o/r/blob/" + headSha + "/x%281%29.sh#L2)"},
		{checks.Finding{Path: "../etc/passwd", Line: 1}, "`../etc/passwd:1`"},
		{checks.Finding{Path: "t.sh"}, "`t.sh`"},
	} {
		if got := r.lineLink(tc.f, markdown.Location(tc.f.Path, tc.f.Line, tc.f.EndLine)); got != tc.want {
			t.Errorf("lineLink(%+v) = %s, want %s", tc.f, got, tc.want)
		}
	}
	r.Links.Repo = "javascript:alert(1)//"
	if got := r.lineLink(checks.Finding{Path: "t.sh", Line: 1}, "t.sh:1"); strings.Contains(got, "](") {
		t.Errorf("a repository page that is not https is linked: %s", got)
	}
}

// TestLeadFitsLimit: the failures listed first are cut like any list, so
// long paths and many failures still fit a small limit.
func TestLeadFitsLimit(t *testing.T) {
	t.Parallel()
	r := linkedFail()
	var fs []checks.Finding
	for i := range 40 {
		fs = append(fs, checks.Finding{Path: strings.Repeat("dir<@>/", 300) + itoa(i), Line: i + 1, Level: checks.LevelFailure, Message: strings.Repeat("m", 2000)})
	}
	r.Results[0].Findings = fs
	md, err := r.MarkdownLimit(8000)
	if err != nil {
		t.Fatal(err)
	}
	if len(md) > 8000 {
		t.Errorf("%d bytes, limit 8000", len(md))
	}
	if !strings.Contains(md, "more causes below, in the details of the checks.") || !strings.Contains(md, "causes listed first.") {
		t.Errorf("the cut of the lead is not named:\n%s", md)
	}
}
