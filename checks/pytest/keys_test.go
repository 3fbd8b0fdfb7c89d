package pytest

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/internal/gitx"
)

// parserPy reads the runner's result by key, as datasmith's parser.py does.
const parserPy = `import json, os
path = os.path.join(os.environ["T_BENCH_TASK_LOGS_PATH"], "test_results.json")
data = json.load(open(path))
total = data["results"]["summary"]["total"]
regressed = data.get("regression", {}).get('regressed', [])
`

// gradeSh reads it with jq.
const gradeSh = `#!/bin/bash
n=$(jq -r '.results.summary.total' "$LOGS/test_results.json")
echo "$n"
`

// TestRunnerKeysTheConsumerReads: a runner whose head stops writing a key
// of its result file that another file of the repository reads fails,
// naming the reading line; a key nobody reads, and a runner that did not
// change, do not.
func TestRunnerKeysTheConsumerReads(t *testing.T) {
	t.Parallel()
	needPython(t)
	weakData, err := os.ReadFile("testdata/weak_runner.py")
	if err != nil {
		t.Fatal(err)
	}
	weak := string(weakData)
	const written = `{"results": {"summary": {"total": len(first)}},`
	if !strings.Contains(weak, written) {
		t.Fatalf("testdata/weak_runner.py no longer writes %s", written)
	}
	renamed := strings.Replace(weak, written, `{"results": {"summary": {"count": len(first)}},`, 1)
	withHost := strings.Replace(weak, written, `{"host": "h", "results": {"summary": {"total": len(first)}},`, 1)
	cases := []struct {
		name       string
		base, head map[string]string
		want       checks.Conclusion
		finding    string // a failure finding at this path:line holds "total"
		note       string // a note holds it; "" for no note of keys
	}{
		{name: "a renamed key that parser.py reads",
			base: map[string]string{"tmpl/pytest_runner.py": weak, "tmpl/parser.py": parserPy},
			head: map[string]string{"tmpl/pytest_runner.py": renamed},
			want: checks.Failure, finding: "tmpl/parser.py:4", note: "were compared"},
		{name: "a renamed key that a jq line reads",
			base: map[string]string{"tmpl/pytest_runner.py": weak, "tmpl/grade.sh": gradeSh},
			head: map[string]string{"tmpl/pytest_runner.py": renamed},
			want: checks.Failure, finding: "tmpl/grade.sh:2", note: "were compared"},
		{name: "a dropped key that nobody reads",
			base: map[string]string{"tmpl/pytest_runner.py": withHost, "tmpl/parser.py": parserPy},
			head: map[string]string{"tmpl/pytest_runner.py": weak},
			want: checks.Success, note: "were compared"},
		{name: "the same runner: no comparison",
			base: map[string]string{"tmpl/pytest_runner.py": weak, "tmpl/parser.py": parserPy},
			head: map[string]string{"tmpl/parser.py": parserPy + "# touched\n", "tmpl/notes.txt": "x\n"},
			want: checks.Skipped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := makeRepo(t, c.base, c.head)
			in := checktest.Input(t, gitx.Repo{Dir: dir}, checktest.Base, checktest.Head, runnerConfig(), runnerConfig())
			res := New().Run(context.Background(), in)
			if res.Conclusion != c.want {
				t.Errorf("conclusion %s (%s), want %s\nfindings %+v\nnotes %q", res.Conclusion, res.Title, c.want, res.Findings, res.Notes)
			}
			keyFindings := slices.DeleteFunc(slices.Clone(res.Findings), func(f checks.Finding) bool { return !strings.Contains(f.Title, "no longer writes") })
			switch {
			case c.finding == "" && len(keyFindings) > 0:
				t.Errorf("key findings, want none: %+v", keyFindings)
			case c.finding != "":
				path, line, _ := strings.Cut(c.finding, ":")
				if !slices.ContainsFunc(keyFindings, func(f checks.Finding) bool {
					return f.Level == checks.LevelFailure && f.Path == path && line == strconv.Itoa(f.Line) &&
						strings.Contains(f.Message, "results.summary.total") && strings.Contains(f.Message, "test_results.json")
				}) {
					t.Errorf("no failure at %s about results.summary.total: %+v", c.finding, res.Findings)
				}
			}
			hasNote := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "keys of") })
			if (c.note != "") != hasNote {
				t.Errorf("a note of keys: %v, want %v: %q", hasNote, c.note != "", res.Notes)
			}
		})
	}
}

// TestKeyReadsAndDrops: the reads of keys found in a line, the key paths
// of a document, and the leaves the head dropped.
func TestKeyReadsAndDrops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{`total = data["results"]["summary"]['total']`, "results summary total"},
		{`x = d.get("tests_ran", False) or d.get( 'n' )`, "tests_ran n"},
		{`n=$(jq -r '.results.summary.total' "$F")`, "results summary total"},
		{`echo .not_jq ["x"]`, "x"},
		{`print(f"{a}")`, ""},
	} {
		if got := strings.Join(keyReads(tc.line), " "); got != tc.want {
			t.Errorf("keyReads(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	doc := map[string]any{"a": map[string]any{"b": 1, "c": []any{map[string]any{"d": 1}}}, "e": 2}
	if got := strings.Join(jsonKeys(doc), " "); got != "a a.b a.c a.c[].d e" {
		t.Errorf("jsonKeys = %q", got)
	}
	dropped := droppedLeaves([]string{"a", "a.total", "a.c[].d", "host"}, []string{"a", "b.total", "a.c[].d"})
	if len(dropped) != 1 || dropped["host"] != "host" {
		t.Errorf("droppedLeaves = %v, want only host", dropped)
	}
}
