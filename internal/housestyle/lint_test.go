package housestyle

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// good is a small comment in the house format that breaks no rule. It has
// the things the rules must not count: code, tables, URLs in code, details.
const good = "<!-- template-verify:comment -->\n" +
	"## Purpose\n\n" +
	"This PR changes `tests/test.sh`. The run checks it with render. All checks passed.\n\n" +
	"## How it works\n\n" +
	"```mermaid\nflowchart LR\n  change[\"1 template\"] --> c1[\"render: passed (2 s)\"]\n  c1 --> verdict{\"result: passed\"}\n```\n\n" +
	"1. The render check renders each template at base and at head.\n" +
	"2. It runs `bash -n` on every shell script.\n\n" +
	"## Changes\n\n" +
	"1. **tests/test.sh: the restore step matches test files**\n\n" +
	"   Effect: pytest runs the original tests against the code of the agent.\n\n" +
	"   Before: edits of the agent to tests stayed in the tree.\n\n" +
	"   <details><summary>Rendered diff</summary>\n\n" +
	"   ```diff\n   - one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twentyone twentytwo twentythree twentyfour twentyfive twentysix\n   ```\n\n" +
	"   </details>\n\n" +
	"## Verification\n\n" +
	"| Check | Result | Figures |\n|---|---|---|\n| render | passed | one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twentyone twentytwo twentythree twentyfour twentyfive twentysix |\n\n" +
	"- pytest tests/test_x.py: 22 passed, 1 skipped (`PYTHONPATH=src python3 -m pytest -p no:cacheprovider tests/test_x.py`)\n" +
	"- The module path is `github.com/formula-code/template-verify`; the code is not prose.\n\n" +
	"```sh\ntemplate-verify run --repo . --base main --head pr # a contract, robust, on example.com\n```\n\n" +
	"## Notes\n\n" +
	"- The pytest check did not run: no suite matches the changed paths.\n" +
	"- The file is owned by root, and the owner does not change.\n"

func TestGoodPasses(t *testing.T) {
	if ps := Lint(good); len(ps) != 0 {
		t.Fatalf("problems in a good comment:\n%s", dump(ps))
	}
}

// words returns n words and a period.
func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "word"
	}
	return strings.Join(w, " ") + "."
}

func TestRules(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []string // "line rule"
	}{
		{"unknown section", "## Purpose\n\nText.\n\n## Summary\n\nText.\n", []string{"5 section"}},
		{"order", "## Notes\n\nText.\n\n## Purpose\n\nText.\n", []string{"5 section"}},
		{"twice", "## Purpose\n\nText.\n\n## Purpose\n\nText.\n", []string{"5 section"}},
		{"case and closing marks", "## purpose ##\n\n## How it works\n", nil},
		{"h1", "# Title\n\n## Purpose\n", []string{"1 section"}},
		{"setext", "Purpose\n-------\n\nText.\n", []string{"2 section"}},
		{"setext equals", "Purpose\n===\n", []string{"2 section"}},
		{"h3 is free", "## Verification\n\n### render\n\nText.\n", nil},
		{"25 words pass", words(25), nil},
		{"26 words fail", words(26), []string{"1 sentence-length"}},
		{"sentence over two lines", "## Purpose\n\n" + words(13)[:len(words(13))-1] + "\n" + words(13) + "\n", []string{"3 sentence-length"}},
		{"two sentences", words(20) + " " + words(20), nil},
		{"step of 20", "1. " + words(20), nil},
		{"step of 21", "1. " + words(21), []string{"1 sentence-length"}},
		{"step with paren", "1) " + words(21), []string{"1 sentence-length"}},
		{"bullet of 21", "- " + words(21), nil},
		{"numbered change of 21", "## Changes\n\n1. " + words(21), nil},
		{"numbered change of 26", "## Changes\n\n1. " + words(26), []string{"3 sentence-length"}},
		{"second paragraph of a step", "1. Step.\n\n   " + words(21), nil},
		{"code span is one word", strings.Repeat("w ", 24) + "`a b c d e`.", nil},
		{"code span plus one", strings.Repeat("w ", 25) + "`a b c d e`.", []string{"1 sentence-length"}},
		{"link counts its text", strings.Repeat("w ", 23) + "[two words](https://example.invalid/a/b/c).", nil},
		{"fence is not counted", "```\n" + words(40) + "\n```\n", nil},
		{"table is not counted", "| a | b |\n|---|---|\n| " + words(40) + " | x |\n", nil},
		{"heading is not counted", "## Notes " + words(40) + "\n", []string{"1 section"}},
		{"comment is not counted", "<!--\n" + words(40) + "\n-->\n", nil},
		{"details summary is counted", "<details><summary>" + words(26) + "</summary>\n", []string{"1 sentence-length"}},
		{"banned", "The guard stays.\n", []string{"1 banned-word"}},
		{"banned inflection", "It surfaced twice and guards it.\n", []string{"1 banned-word", "1 banned-word"}},
		{"banned case", "A Robust tool.\n", []string{"1 banned-word"}},
		{"banned phrase across lines", "The check must fail\nclosed here.\n", []string{"1 banned-word"}},
		{"banned fails loudly", "It fails loudly.\n", []string{"1 banned-word"}},
		{"banned hyphen", "A load-bearing step and a footgun.\n", []string{"1 banned-word", "1 banned-word"}},
		{"banned in table", "| a |\n|---|\n| contracts |\n", []string{"3 banned-word"}},
		{"banned in heading", "## Seamless\n", []string{"1 banned-word", "1 section"}},
		{"banned straddle owns", "It straddles two. He owns it.\n", []string{"1 banned-word", "1 banned-word"}},
		{"not banned inside words", "A guardrail, resurfaced? Ownership, contractors, owned, owner, contractor.\n", nil},
		{"not banned in code", "The `guard` function. ```contract```.\n", nil},
		{"host", "See example.com for it.\n", []string{"1 host-name"}},
		{"host in link target", "See [the PR](https://github.com/o/r/pull/1).\n", nil},
		{"host in link text", "See [github.com/o/r](https://github.com/o/r/pull/1).\n", []string{"1 host-name"}},
		{"bare URL", "See https://github.com/o/r/pull/1 now.\n", []string{"1 host-name"}},
		{"host in code", "Run `curl https://example.com`.\n", nil},
		{"file names are not hosts", "Edit setup.py, test.sh and go.mod.\n", nil},
		{"ai word", "Written by AI.\n", []string{"1 ai-attribution"}},
		{"ai lower is a word part", "The said tail.\n", nil},
		{"generated with", "## Notes\n\nGenerated with a tool.\n", []string{"3 ai-attribution"}},
		{"co-authored-by", "Co-Authored-By: someone\n", []string{"1 ai-attribution"}},
		{"footer rule", "## Notes\n\n- A note.\n\n---\n\nThanks.\n", []string{"5 footer"}},
		{"footer sub", "## Notes\n\n- A note.\n\n<sub>made by a bot</sub>\n", []string{"5 footer"}},
		{"rule before the last section", "## Purpose\n\nText.\n\n***\n\n## Notes\n\nText.\n", nil},
		{"mermaid start", "```mermaid\nsequenceDiagram\n  A->>B: hi\n```\n", []string{"2 mermaid"}},
		{"mermaid quote", "```mermaid\nflowchart LR\n  A[\"x] --> B\n```\n", []string{"3 mermaid"}},
		{"mermaid bracket", "```mermaid\nflowchart LR\n  A[\"x\" --> B\n```\n", []string{"3 mermaid"}},
		{"mermaid wrong close", "```mermaid\ngraph TD\n  A(x] --> B\n```\n", []string{"3 mermaid"}},
		{"mermaid empty", "```mermaid\n\n```\n", []string{"1 mermaid"}},
		{"mermaid brackets in quotes", "```mermaid\nflowchart LR\n  A[\"a ( b\"] --> B{\"c ]\"}\n```\n", nil},
		{"fence open", "Text.\n\n```sh\necho hi\n", []string{"3 fence"}},
		{"longer fence holds a short one", "````text\n```\nx\n````\n", nil},
		{"tilde fence", "~~~\n" + words(30) + "\n~~~\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := Lint(tt.md)
			var got []string
			for _, p := range ps {
				got = append(got, strconv.Itoa(p.Line)+" "+p.Rule)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q\n%s", got, tt.want, dump(ps))
			}
		})
	}
}

func TestProblemNamesTheWord(t *testing.T) {
	ps := Lint("Our tests surfaced it.\n")
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, `"surfaced"`) || !strings.Contains(ps[0].Msg, `"surface"`) {
		t.Fatalf("got %v", ps)
	}
	ps = Lint("1. " + words(21))
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "step of 21 words (limit 20)") {
		t.Fatalf("got %v", ps)
	}
}

func TestCRLF(t *testing.T) {
	md := strings.ReplaceAll(good, "\n", "\r\n")
	if ps := Lint(md); len(ps) != 0 {
		t.Fatalf("problems with CRLF line ends:\n%s", dump(ps))
	}
}

func FuzzLint(f *testing.F) {
	f.Add(good)
	f.Add("```mermaid\nflowchart LR\n  A[\"x\" --> B)\n")
	f.Add("<!-- a\n\n| a |\n|---|\n- `x\n1. [a](b) ``c` ` guard")
	f.Add("Purpose\n---\n## Notes\n***\n<sub>")
	f.Fuzz(func(t *testing.T, md string) {
		for _, p := range Lint(md) {
			if p.Line < 1 || p.Rule == "" || p.Msg == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
	})
}

func TestMaskCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a `b c` d", "a CODE d"},
		{"a ``b ` c`` d", "a CODE d"},
		{"a `b", "a `b"},
		{"`a` and `b`", "CODE and CODE"},
		{"`` x ` y", "`` x ` y"},
		{"``` `a` ```", "CODE"},
		{"`a`` b`", "CODE"},
	}
	for _, tt := range tests {
		if got := maskCode(tt.in); got != tt.want {
			t.Errorf("maskCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkLint lints a long comment with many backtick runs, the input
// that would be slow if masking were quadratic.
func BenchmarkLint(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 64<<10 {
		sb.WriteString(good)
		sb.WriteString("` `` ``` ")
	}
	md := sb.String()
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		Lint(md)
	}
}
