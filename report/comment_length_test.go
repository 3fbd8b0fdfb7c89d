package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// shownLine is one line a reader sees with every <details> folded, with
// the markdown source it comes from.
type shownLine struct{ src string }

// foldedView parses md as GitHub does (CommonMark with GFM tables) and
// lists the lines a reader sees when every <details> block is folded: a
// heading, a paragraph (and one more line per hard break), each line of a
// code block, each row of a table, and the summary line of each
// top-level <details>. The body of a <details> is hidden, however deep it
// nests; an HTML comment shows nothing.
func foldedView(md string) []shownLine {
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(src))
	var out []shownLine
	depth := 0
	lineOf := func(n ast.Node) string {
		if l := n.Lines(); l.Len() > 0 {
			return strings.TrimSpace(segText(l.At(0), src))
		}
		return ""
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				b.WriteString(segText(n.Lines().At(i), src))
			}
			if n.HasClosure() {
				b.WriteString(segText(n.ClosureLine, src))
			}
			html := b.String()
			opens, closes := strings.Count(html, "<details>"), strings.Count(html, "</details>")
			if depth == 0 && opens > 0 {
				out = append(out, shownLine{strings.TrimSpace(strings.SplitN(html, "\n", 2)[0])})
			}
			depth += opens - closes
			return ast.WalkSkipChildren, nil
		case *ast.Heading, *ast.Paragraph, *ast.TextBlock:
			if depth == 0 {
				line := lineOf(n)
				if h, ok := n.(*ast.Heading); ok {
					line = strings.Repeat("#", h.Level) + " " + line
				}
				if li, ok := n.Parent().(*ast.ListItem); ok && li.FirstChild() == n {
					line = "- " + line // an item of an ordered list shows as "- " too
				}
				out = append(out, shownLine{line})
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*ast.Text); ok && t.HardLineBreak() {
						out = append(out, shownLine{"(hard break)"})
					}
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if depth == 0 {
				for i := 0; i < n.Lines().Len(); i++ {
					out = append(out, shownLine{strings.TrimRight(segText(n.Lines().At(i), src), "\n")})
				}
			}
			return ast.WalkSkipChildren, nil
		case *extast.TableHeader, *extast.TableRow:
			if depth == 0 {
				out = append(out, shownLine{"(table row)"})
			}
			return ast.WalkSkipChildren, nil
		case *ast.ThematicBreak:
			if depth == 0 {
				out = append(out, shownLine{"---"})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// goldenComments are every comment golden of the repository: the
// report's fixtures, the demo's and the examples'.
func goldenComments(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, glob := range []string{"testdata/*.md.golden", "../cmd/template-verify/testdata/*.md", "../examples/testdata/comments/*.md"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if IsComment(string(b)) {
				out[f] = string(b)
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found %d comment goldens, want the report's, the demo's and the examples'", len(out))
	}
	return out
}

// houseSections are the sections of the house format, in their order.
var houseSections = []string{"## Purpose", "## How it works", "## Changes", "## Usage", "## Verification", "## Notes"}

// maxPassingLines is the most lines a passing comment shows with every
// <details> folded: the verdict, each section's heading and its line (the
// changes fold under one), the checks line and the link.
const maxPassingLines = 14

// TestGoldenCommentLength: with every <details> folded, a passing
// comment shows at most maxPassingLines lines and a failing one shows its first cause
// within its first 5 lines; the house format's sections stay, whole and
// in order, and every folded block still opens.
func TestGoldenCommentLength(t *testing.T) {
	t.Parallel()
	for name, md := range goldenComments(t) {
		shown := foldedView(md)
		if len(shown) == 0 {
			t.Errorf("%s: no visible line", name)
			continue
		}
		verdict := shown[0].src
		switch {
		case strings.Contains(verdict, markPass+" Passed"):
			if len(shown) > maxPassingLines {
				t.Errorf("%s: a passing comment shows %d lines with <details> folded, want at most %d", name, len(shown), maxPassingLines)
			}
		case strings.Contains(verdict, markFail+" Failed"):
			first := -1
			for i, l := range shown {
				if strings.HasPrefix(l.src, "- "+markFail) {
					first = i
					break
				}
			}
			if first < 0 || first >= 5 {
				t.Errorf("%s: the first cause is not within the first 5 visible lines (index %d)", name, first)
			}
		case strings.Contains(verdict, markNotRun+" Not run"):
		default:
			t.Errorf("%s: the first visible line is not a verdict: %q", name, verdict)
		}
		if !regexp.MustCompile("^\\*\\*(✅ Passed|❌ Failed|🚫 Not run)\\*\\*( at (\\[)?`[0-9a-f]{12}`)?").MatchString(verdict) {
			t.Errorf("%s: verdict %q, want the mark, the verdict and the short head sha", name, verdict)
		}
		last := -1
		for _, h := range houseSections {
			i := strings.Index(md, "\n"+h+"\n")
			if i < 0 {
				continue
			}
			if i < last {
				t.Errorf("%s: %s is out of the house order", name, h)
			}
			last = i
			if !visible(shown, h) {
				t.Errorf("%s: the heading %s is folded away", name, h)
			}
		}
		if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
			t.Errorf("%s: %d <details> but %d </details>", name, strings.Count(md, "<details>"), strings.Count(md, "</details>"))
		}
		t.Logf("%s: %d lines, %d visible with <details> folded", name, strings.Count(md, "\n"), len(shown))
	}
}

func visible(shown []shownLine, src string) bool {
	for _, l := range shown {
		if l.src == src {
			return true
		}
	}
	return false
}

// TestFoldedView pins the counting rule on a small comment, so that the
// limits above measure what they say.
func TestFoldedView(t *testing.T) {
	t.Parallel()
	md := Marker + "\n**✅ Passed** at `abc`. All 1 checks passed.\n\n## Purpose\n\nOne line.\nSame paragraph.\n\n" +
		"<details><summary>Tree</summary>\n\n```text\na\nb\n```\n\n<details><summary>inner</summary>\n\nhidden\n\n</details>\n\n</details>\n\n" +
		"1. **Item**\n\n   Effect: x.\n\n   <details><summary>Diff</summary>\n\n   ```diff\n   +a\n   ```\n\n   </details>\n\n" +
		"| A | B |\n| --- | --- |\n| 1 | 2 |\n\n```sh\ncmd\n```\n"
	got := foldedView(md)
	var srcs []string
	for _, l := range got {
		srcs = append(srcs, l.src)
	}
	want := []string{"**✅ Passed** at `abc`. All 1 checks passed.", "## Purpose", "One line.", "<details><summary>Tree</summary>", "- **Item**", "Effect: x.", "<details><summary>Diff</summary>", "(table row)", "(table row)", "cmd"}
	if strings.Join(srcs, "\n") != strings.Join(want, "\n") {
		t.Errorf("folded view:\n%s\nwant:\n%s", strings.Join(srcs, "\n"), strings.Join(want, "\n"))
	}
}

func segText(s text.Segment, src []byte) string { return string(s.Value(src)) }
