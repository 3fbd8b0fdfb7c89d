package junit

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run with -update after checking.\ngot:\n%s", name, got)
	}
}

type caseView struct {
	ID         string  `json:"id"`
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Outcome    Outcome `json:"outcome"`
	Collection bool    `json:"collection_error,omitempty"`
	Message    string  `json:"message,omitempty"`
}

func view(t *testing.T, r *Report, root string) []byte {
	t.Helper()
	var out struct {
		Counts string     `json:"counts"`
		Suites []string   `json:"suites"`
		Cases  []caseView `json:"cases"`
	}
	out.Counts = r.Counts().String()
	for _, s := range r.Suites {
		b, _ := json.Marshal(map[string]any{"name": s.Name, "tests": s.Tests, "failures": s.Failures, "errors": s.Errors, "skipped": s.Skipped})
		out.Suites = append(out.Suites, string(b))
	}
	for _, c := range r.Cases() {
		out.Cases = append(out.Cases, caseView{ID: c.NodeIDIn(root), File: c.FilePathIn(root), Line: c.Line, Outcome: c.Outcome, Collection: c.CollectionError(), Message: c.Message})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestParseGolden(t *testing.T) {
	root := filepath.Join("testdata", "project")
	for _, fam := range []string{"xunit1", "xunit2"} {
		t.Run(fam, func(t *testing.T) {
			r, err := ParseFile(filepath.Join("testdata", "junit-"+fam+".xml"))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "junit-"+fam+".golden.json", view(t, r, root))
		})
	}
}

// TestNodeIDsMatchPytest checks the ids built from both JUnit families
// against the ids pytest printed with --collect-only for the same project.
func TestNodeIDsMatchPytest(t *testing.T) {
	want := readNodeIDs(t, filepath.Join("testdata", "nodeids.txt"))
	checkIDs(t, filepath.Join("testdata", "junit-xunit1.xml"), filepath.Join("testdata", "project"), want, true)
	checkIDs(t, filepath.Join("testdata", "junit-xunit2.xml"), filepath.Join("testdata", "project"), want, false)
}

func readNodeIDs(t *testing.T, p string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		ids[strings.TrimSpace(l)] = true
	}
	return ids
}

func checkIDs(t *testing.T, file, root string, want map[string]bool, plainToo bool) {
	t.Helper()
	r, err := ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range r.Cases() {
		id := c.NodeIDIn(root)
		if c.CollectionError() {
			if id != "tests/test_broken_import.py" {
				t.Errorf("%s: collection error id %q, want the file path", file, id)
			}
			continue
		}
		if !want[id] {
			t.Errorf("%s: id %q (classname %q, name %q) is not a pytest node id", file, id, c.Classname, c.Name)
		}
		if plainToo && c.NodeID() != id {
			t.Errorf("%s: NodeID() = %q, NodeIDIn() = %q", file, c.NodeID(), id)
		}
		seen[id] = true
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s: pytest node id %q has no test case", file, id)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "r.xml: the file is empty"},
		{"not xml", "hello <", "r.xml:1:"},
		{"cut", "<testsuites><testsuite>", "r.xml:1: unexpected EOF"},
		{"wrong root", "<report/>", "the root element is <report>"},
		{"bad count", `<testsuite tests="x"/>`, `r.xml: testsuite 1: attribute tests="x" is not a count`},
		{"bad line", `<testsuite><testcase name="t" line="-3"/></testsuite>`, `testcase 1 (t): attribute line="-3" is not a line number`},
		{"bad time", `<testsuite><testcase name="t" time="fast"/></testsuite>`, `attribute time="fast" is not a number`},
		{"no name", `<testsuite><testcase classname="a"/></testsuite>`, "testcase has no name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r.xml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%q) error = %v, want it to contain %q", tc.data, err, tc.want)
			}
		})
	}
	if _, err := ParseFile(filepath.Join(t.TempDir(), "missing.xml")); err == nil || !strings.Contains(err.Error(), "missing.xml") {
		t.Errorf("ParseFile of a missing file: %v", err)
	}
}

func TestSingleSuiteRootAndOutcomes(t *testing.T) {
	data := `<testsuite name="s" tests="4">
  <testcase classname="tests.test_a" name="t1" file="tests/test_a.py" line="4"/>
  <testcase classname="tests.test_a" name="t2"><failure message="m">trace</failure><error message="teardown">x</error></testcase>
  <testcase classname="tests.test_a.TestK" name="t3"><error message="boom"/></testcase>
  <testcase classname="tests.test_a" name="t4"><skipped message="why"/></testcase>
</testsuite>`
	r, err := Parse("s.xml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	cs := r.Cases()
	if len(cs) != 4 {
		t.Fatalf("%d cases", len(cs))
	}
	checks := []struct {
		got, want any
	}{
		{cs[0].Line, 5},
		{cs[0].NodeID(), "tests/test_a.py::t1"},
		{cs[1].Outcome, Failed},
		{cs[1].Text, "trace"},
		{cs[1].Message, "m"},
		{cs[2].FilePath(), "tests/test_a.py"},
		{cs[2].Outcome, Error},
		{cs[2].NodeID(), "tests/test_a.py::TestK::t3"},
		{cs[2].CollectionError(), false},
		{cs[3].Outcome, Skipped},
		{r.Counts().String(), "1 failed, 1 passed, 1 skipped, 1 error"},
		{Counts{}.String(), "no tests"},
		{Counts{Passed: 22, Skipped: 1}.String(), "22 passed, 1 skipped"},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %v, want %v", i, c.got, c.want)
		}
	}
}
