package pytestlog

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// referencePython is the interpreter that runs testdata/parse_pytest_log.py.
const referencePython = "/usr/bin/python3"

// pyResult is the reference output: strings as base64 of their bytes.
type pyResult struct {
	Failed       [][]byte `json:"failed"`
	Errors       [][]byte `json:"errors"`
	Assertions   [][]byte `json:"assertions"`
	FailureCount int      `json:"failure_count"`
}

// TestCrossCheckPython compares Parse with the Python reference on the log
// corpus, the fuzz corpus, hand-made edge cases and one line per Unicode
// code point.
func TestCrossCheckPython(t *testing.T) {
	if _, err := os.Stat(referencePython); err != nil {
		t.Skipf("%s is not installed: %v", referencePython, err)
	}
	inputs := map[string]string{}
	logs, err := filepath.Glob(filepath.Join("testdata", "logs", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range logs {
		inputs[p] = readLog(t, filepath.Base(p))
	}
	seeds, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range seeds {
		inputs[p] = readFuzzSeed(t, p)
	}
	for i, s := range edgeCases() {
		inputs["edge "+strconv.Itoa(i)] = s
	}
	inputs["every code point"] = everyCodePoint()
	if len(logs) < 5 || len(seeds) < 10 {
		t.Fatalf("corpus too small: %d logs, %d fuzz seeds", len(logs), len(seeds))
	}

	names := make([]string, 0, len(inputs))
	req := make([][]byte, 0, len(inputs))
	for name, s := range inputs {
		names = append(names, name)
		req = append(req, []byte(s))
	}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, referencePython, filepath.Join("testdata", "parse_pytest_log.py"))
	cmd.Stdin = bytes.NewReader(body)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "PYTHONIOENCODING=utf-8"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference: %v\n%s", err, stderr.String())
	}
	var want []pyResult
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("reference output: %v", err)
	}
	if len(want) != len(names) {
		t.Fatalf("reference gave %d results for %d inputs", len(want), len(names))
	}
	for i, name := range names {
		got := Parse(inputs[name])
		w := want[i]
		if !equalBuckets(got.Failed, w.Failed) || !equalBuckets(got.Errors, w.Errors) ||
			!equalBuckets(got.Assertions, w.Assertions) || got.FailureCount != w.FailureCount {
			t.Errorf("%s: Go and Python differ\n go: %s\n py: failed=%q errors=%q assertions=%q count=%d",
				name, show(got), w.Failed, w.Errors, w.Assertions, w.FailureCount)
		}
	}
}

func equalBuckets(got []string, want [][]byte) bool {
	g := make([][]byte, len(got))
	for i, s := range got {
		g[i] = []byte(s)
	}
	if len(g) == 0 && len(want) == 0 {
		return true
	}
	return reflect.DeepEqual(g, want)
}

func show(r Result) string {
	b, _ := json.Marshal(r)
	if len(b) > 2000 {
		b = append(b[:2000], "..."...)
	}
	return string(b)
}

// readFuzzSeed reads a corpus file in the "go test fuzz v1" format with one
// string value.
func readFuzzSeed(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(b), "\n")
	if !ok || head != "go test fuzz v1" {
		t.Fatalf("%s: not a fuzz corpus file", p)
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(rest), "string(")
	if !ok || !strings.HasSuffix(lit, ")") {
		t.Fatalf("%s: want one string value", p)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return s
}

// edgeCases mixes every break and white-space character with the three
// markers.
func edgeCases() []string {
	specials := []string{"\t", "\n", "\v", "\f", "\r", "\r\n", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\u0085", "\u00a0", "\u1680", "\u2000", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\xff", "\xe2\x80"}
	markers := []string{"FAILED x", "E", "Ex", "AssertionError", "ERROR y", ""}
	var out []string
	for _, a := range specials {
		var b strings.Builder
		for _, m := range markers {
			for _, c := range specials {
				b.WriteString(a + m + c + "E" + c + "z" + a + "\n")
			}
		}
		out = append(out, b.String())
	}
	return out
}

// everyCodePoint gives one line "<c>E<c>x<c>" per code point c, so the
// white-space and line-break tables are compared in full.
func everyCodePoint() string {
	var b strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates cannot be encoded in UTF-8
		}
		c := string(r)
		b.WriteString(c + "E" + c + "x" + c + "\n")
	}
	return b.String()
}
