package synccheck

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func values(items []Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Value)
	}
	return out
}

func lines(items []Item) []int {
	out := []int{}
	for _, it := range items {
		out = append(out, it.Line)
	}
	return out
}

func TestBashArray(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src  string
		want       []string
		wantLines  []int
		wantErr    string
		wantAbsent bool
	}{
		{name: "datasmith", src: "x=1\n_fc_restore_patterns=(\n  -e '(^|/)benchmarks?/'\n  -e \"(^|/)asv\\.conf\"\n)\n",
			want: []string{"-e", "(^|/)benchmarks?/", "-e", `(^|/)asv\.conf`}, wantLines: []int{3, 3, 4, 4}},
		{name: "append and declare", src: "declare -a a=(one)\na+=(two\\ words)\n", want: []string{"one", "two words"}, wantLines: []int{1, 2}},
		{name: "reassigned", src: "a=(old)\na=(new)\n", want: []string{"new"}, wantLines: []int{2}},
		{name: "expansion kept as source", src: "a=(\"$HOME/x\" 'y')\n", want: []string{`"$HOME/x"`, "y"}, wantLines: []int{1, 1}},
		{name: "in a function", src: "f() {\n  local -a a=('in')\n}\n", want: []string{"in"}, wantLines: []int{2}},
		{name: "absent", src: "b=(x)\na=scalar\n", wantAbsent: true},
		{name: "bad bash", src: "a=(\n", wantErr: "bash:"},
		{name: "a syntax error elsewhere", src: "if true; then\n  a=(one\n   'two')\n  a+=(three)\n", want: []string{"one", "two", "three"}, wantLines: []int{2, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := BashArray(tt.src, "a")
			if tt.name == "datasmith" {
				got, err = BashArray(tt.src, "_fc_restore_patterns")
			}
			switch {
			case tt.wantAbsent:
				if !errors.Is(err, errNotFound) {
					t.Fatalf("err = %v, want not found", err)
				}
				return
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if !reflect.DeepEqual(values(got), tt.want) || !reflect.DeepEqual(lines(got), tt.wantLines) {
				t.Errorf("got %q at %v, want %q at %v", values(got), lines(got), tt.want, tt.wantLines)
			}
		})
	}
}

// pythonCases are module sources; PythonList must agree with Python's own
// ast.literal_eval of the assignment (see TestPythonListMatchesPython).
var pythonCases = []struct {
	name, src string
	want      []string
	wantErr   string
}{
	{name: "list", src: "import re\n\nP = [\n    r\"(^|/)benchmarks?/\",  # suite\n    r'(^|/)asv\\.conf',\n]\n",
		want: []string{"(^|/)benchmarks?/", `(^|/)asv\.conf`}},
	{name: "annotated tuple", src: "P: tuple[str, ...] = (\"a\", 'b' 'c',)\n", want: []string{"a", "bc"}},
	{name: "frozenset", src: "P = frozenset({\"x\\ty\", '\\x41\\u00e9\\n', \"\\.\"})\n", want: []string{"x\ty", "Aé\n", `\.`}},
	{name: "last wins", src: "P = ['old']\nP = ['new']\n", want: []string{"new"}},
	{name: "not module level", src: "def f():\n    P = ['inner']\nP = ['outer']\n", want: []string{"outer"}},
	{name: "in a docstring", src: "\"\"\"\nP = ['doc']\n\"\"\"\nP = ['code']\n", want: []string{"code"}},
	{name: "compare is not assignment", src: "P == ['no']\nP = ['yes']\n", want: []string{"yes"}},
	{name: "triple quoted", src: "P = ['''a\nb''']\n", want: []string{"a\nb"}},
	{name: "not literal", src: "P = [BASE + 'x']\n", wantErr: "not a string"},
	{name: "dict", src: "P = {'a': 1}\n", wantErr: "dict"},
	{name: "f-string", src: "P = [f'x']\n", wantErr: "f-string"},
}

func TestPythonList(t *testing.T) {
	t.Parallel()
	for _, tt := range pythonCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := PythonList(tt.src, "P")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(values(got), tt.want) {
				t.Errorf("got %q, want %q", values(got), tt.want)
			}
		})
	}
	if _, err := PythonList("Q = ['x']\n", "P"); !errors.Is(err, errNotFound) {
		t.Errorf("absent name: err = %v, want not found", err)
	}
	got, _ := PythonList("P = [\n  'a',\n\n  \"b\",\n]\n", "P")
	if !reflect.DeepEqual(lines(got), []int{2, 4}) {
		t.Errorf("lines = %v, want [2 4]", lines(got))
	}
	got, err := PythonList("P = [re.compile(r'a/', re.I), re.compile('b')]\n", "P")
	if err != nil || !reflect.DeepEqual(values(got), []string{"a/", "b"}) {
		t.Errorf("calls: got %q, %v", values(got), err)
	}
}

// TestPythonListMatchesPython checks the Go reader against Python's ast on
// every case that Python evaluates to a collection of strings.
func TestPythonListMatchesPython(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3: not run")
	}
	const script = `import ast, json, sys
src = sys.stdin.read()
val = None
for node in ast.parse(src).body:
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == "P" for t in targets):
            v = node.value
            if isinstance(v, ast.Call):
                v = v.args[0]
            try:
                val = ast.literal_eval(v)
            except Exception:
                val = None
if isinstance(val, (list, tuple, set)) and all(isinstance(x, str) for x in val):
    json.dump(sorted(val), sys.stdout)
else:
    json.dump(None, sys.stdout)
`
	for _, tt := range pythonCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(py, "-I", "-c", script)
			cmd.Stdin = strings.NewReader(tt.src)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			got, gerr := PythonList(tt.src, "P")
			if want == nil {
				if gerr == nil {
					t.Errorf("Python finds no string collection; Go read %q", values(got))
				}
				return
			}
			if gerr != nil {
				t.Fatalf("Python reads %q; Go: %v", want, gerr)
			}
			g := values(got)
			slices.Sort(g)
			if !reflect.DeepEqual(g, want) {
				t.Errorf("Go %q, Python %q", g, want)
			}
		})
	}
}

func TestJinjaDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string
		line      int
		absent    bool
	}{
		{name: "list", src: "a\n{% set pats = pats | default(['x/', \"y\"]) %}\n", want: []string{"x/", "y"}, line: 2},
		{name: "d and string", src: "{{ pats|d('only') }}", want: []string{"only"}, line: 1},
		{name: "other name with suffix", src: "{{ mypats | default(['no']) }}", absent: true},
		{name: "no default", src: "{{ pats }}", absent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := JinjaDefault(tt.src, "pats")
			if tt.absent {
				if !errors.Is(err, errNotFound) {
					t.Fatalf("err = %v, want not found", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(values(got), tt.want) || got[0].Line != tt.line {
				t.Errorf("got %q line %d, want %q line %d", values(got), got[0].Line, tt.want, tt.line)
			}
		})
	}
}

func TestBetween(t *testing.T) {
	t.Parallel()
	src := "intro\n# BEGIN\n  a  \n\nb\n# END\n# BEGIN\nc\n# END\n"
	got, err := Between(src, `^# BEGIN`, `^# END`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(values(got), []string{"a", "b"}) || !reflect.DeepEqual(lines(got), []int{3, 5}) {
		t.Errorf("got %q at %v", values(got), lines(got))
	}
	if _, err := Between(src, `^# NONE`, `^# END`); !errors.Is(err, errNotFound) {
		t.Errorf("no start: err = %v, want not found", err)
	}
	// A list at the end of a file, such as a YAML list, has no end
	// marker: the section runs to the end of the file. This was the error
	// "no line after line 1 matches the end marker", and the copy was not
	// compared (issue 25).
	got, err = Between("# BEGIN\na\n", `^# BEGIN`, `^# END`)
	if err != nil || !reflect.DeepEqual(values(got), []string{"a"}) {
		t.Errorf("no end: got %q, %v; want [a]", values(got), err)
	}
}

// TestBashArrayHostileScript reads a script of 20,000 unterminated
// assignments: the fallback reads at most maxArrayStarts of them, each at
// most maxArrayLines long, and gives the parse error.
func TestBashArrayHostileScript(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("a=( 'x'\n", 20000)
	start := time.Now()
	_, parses, err := bashArray(src, "a")
	if err == nil || !strings.Contains(err.Error(), "bash:") {
		t.Fatalf("err = %v, want the parse error", err)
	}
	if limit := 1 + maxArrayStarts*maxArrayLines; parses > limit {
		t.Errorf("%d parses, want at most %d", parses, limit)
	}
	t.Logf("20000 lines: %d parses in %s", parses, time.Since(start))
}

// TestPythonListLargeList reads a list of 200,000 strings; the line of
// each item is found by binary search (counting the newlines from the
// start for each item took quadratic time).
func TestPythonListLargeList(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("P = [\n")
	for i := 0; i < 200000; i++ {
		b.WriteString("    'item" + strconv.Itoa(i) + "',\n")
	}
	b.WriteString("]\n")
	start := time.Now()
	got, err := PythonList(b.String(), "P")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 200000 || got[199999].Line != 200001 || got[199999].Value != "item199999" {
		t.Errorf("got %d items, last %+v", len(got), got[len(got)-1])
	}
	t.Logf("200,000 items in %s", time.Since(start))
}
