package jinja

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// pythons returns every interpreter with Jinja2 that the tests use:
// FindPython's answer and Debian's /usr/bin/python3 when it differs.
func pythons(t testing.TB) []string {
	t.Helper()
	py, _, ok := FindPython(context.Background())
	if !ok {
		t.Skip("no python3 with jinja2 on this machine (Debian: apt-get install python3-jinja2)")
	}
	out := []string{py}
	if exe, _, err := probePython(context.Background(), "/usr/bin/python3"); err == nil && exe != py {
		out = append(out, exe)
	}
	return out
}

func TestFindPythonIsCachedAndUsable(t *testing.T) {
	py, ver, ok := FindPython(context.Background())
	if !ok {
		t.Skip("no python3 with jinja2 on this machine")
	}
	if !strings.HasPrefix(ver, "3.") || py == "" {
		t.Errorf("path %q version %q", py, ver)
	}
	if _, err := os.Stat(py); err != nil {
		t.Errorf("the interpreter path does not exist: %v", err)
	}
	start := time.Now()
	py2, ver2, _ := FindPython(context.Background())
	if py2 != py || ver2 != ver {
		t.Errorf("second answer %q %q differs", py2, ver2)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the second call took %s: not cached", d)
	}
}

func TestRenderPythonTypesAndErrors(t *testing.T) {
	files := map[string]string{
		"t/vars.j2":     "{{ i }} {{ f }} {{ n }} {{ l }} {{ m }} {{ big }} {{ neg }} {{ u }} {{ i is integer }} {{ f is float }}",
		"t/inc.j2":      "a\n{% include 'inc/undef.inc' %}",
		"inc/undef.inc": "x\ny\n{{ nope }}",
		"t/syntax.j2":   "a\n{% if %}{% endif %}",
		"t/latin1.j2":   "caf\xe9 {{ 1 }}",
		"t/nl.j2":       "a\n",
	}
	vars := map[string]any{
		"i": 5, "f": 5.0, "n": nil, "l": []any{1, 2.5, "x", nil, true},
		"m": map[any]any{1: "one"}, "big": int64(math.MaxInt64), "neg": -3, "u": uint8(7),
	}
	jobs := []Job{
		{Files: files, Name: "t/vars.j2", Vars: vars, Opts: strict},
		{Files: files, Name: "t/inc.j2", Opts: strict},
		{Files: files, Name: "t/inc.j2", Opts: config.Jinja{}},
		{Files: files, Name: "t/syntax.j2", Opts: strict},
		{Files: files, Name: "t/latin1.j2", Opts: strict},
		{Files: files, Name: "t/missing.j2", Opts: strict},
		{Files: files, Name: "./t//nl.j2", Opts: config.Jinja{KeepTrailingNewline: true}},
		{Files: files, Name: "t/nl.j2", Opts: config.Jinja{}},
	}
	for _, py := range pythons(t) {
		res, err := RenderPython(context.Background(), py, jobs)
		if err != nil {
			t.Fatalf("%s: %v", py, err)
		}
		check := func(i int, want PyResult) {
			t.Helper()
			got := res[i]
			if want.Err != "" {
				if !strings.HasPrefix(got.Err, want.Err) || got.File != want.File || got.Line != want.Line {
					t.Errorf("%s job %d: got %+v, want error %q at %s:%d", py, i, got, want.Err, want.File, want.Line)
				}
				return
			}
			if got.Err != "" || got.Output != want.Output {
				t.Errorf("%s job %d: got %+v, want %q", py, i, got, want.Output)
			}
		}
		check(0, PyResult{Output: "5 5.0 None [1, 2.5, 'x', None, True] {1: 'one'} 9223372036854775807 -3 7 True True"})
		check(1, PyResult{Err: "UndefinedError: 'nope' is undefined", File: "inc/undef.inc", Line: 3})
		check(2, PyResult{Output: "a\nx\ny\n"})
		check(3, PyResult{Err: "TemplateSyntaxError", File: "t/syntax.j2", Line: 2})
		check(4, PyResult{Err: "UnicodeDecodeError"})
		check(5, PyResult{Err: "TemplateNotFound"})
		check(6, PyResult{Output: "a\n"})
		check(7, PyResult{Output: "a"})
	}
}

func TestRenderPythonJobTimeout(t *testing.T) {
	py := pythons(t)[0]
	files := map[string]string{
		"slow": "{% for i in range(1000000000) %}{% endfor %}",
		"fast": "ok",
	}
	res, err := RenderPythonLimits(context.Background(), py, []Job{{Files: files, Name: "slow"}, {Files: files, Name: "fast"}}, Limits{Time: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res[0].Err, "JobTimeout") || res[1].Output != "ok" {
		t.Errorf("got %+v", res)
	}
}

func TestRenderPythonHasNoNetworkAndACleanEnvironment(t *testing.T) {
	py := pythons(t)[0]
	t.Setenv("TV_SECRET_FOR_TEST", "leak")
	src := `{{ self.__init__.__globals__.__builtins__.__import__('os').environ.get('TV_SECRET_FOR_TEST', 'clean') }}`
	res, err := RenderPython(context.Background(), py, []Job{{Files: map[string]string{"t": src}, Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Output != "clean" {
		t.Errorf("the environment reaches the template: %+v", res[0])
	}
	if !sandbox.Available(context.Background()) {
		t.Log("bubblewrap does not work here: the network part is not tested")
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	src = fmt.Sprintf(`{{ self.__init__.__globals__.__builtins__.__import__('socket').create_connection(('127.0.0.1', %d), 2) }}`, port)
	res, err = RenderPython(context.Background(), py, []Job{{Files: map[string]string{"t": src}, Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err == "" {
		t.Errorf("a template reached a port on the host: %+v", res[0])
	}
}

func TestRenderPythonCancelled(t *testing.T) {
	py := pythons(t)[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RenderPython(ctx, py, []Job{{Files: map[string]string{"t": "x"}, Name: "t"}}); err == nil {
		t.Error("no error for a cancelled context")
	}
	if _, err := RenderPython(context.Background(), "/nonexistent/python3", []Job{{Files: map[string]string{"t": "x"}, Name: "t"}}); err == nil {
		t.Error("no error for a missing interpreter")
	}
	if res, err := RenderPython(context.Background(), py, nil); err != nil || res != nil {
		t.Errorf("no jobs: %v %v", res, err)
	}
}

func TestBuildRequestSharesEnvironments(t *testing.T) {
	a := map[string]string{"t": "x", "i": "y"}
	b := map[string]string{"t": "x", "i": "y"} // same content, other map
	c := map[string]string{"t": "x"}
	jobs := []Job{
		{Files: a, Name: "t"}, {Files: a, Name: "t"}, {Files: b, Name: "t"},
		{Files: c, Name: "t"}, {Files: a, Name: "t", Opts: strict},
	}
	req, err := buildRequest(jobs, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Envs []json.RawMessage
		Jobs []struct{ Env int }
	}
	if err := json.Unmarshal(req, &parsed); err != nil {
		t.Fatalf("%v\n%s", err, req)
	}
	var got []int
	for _, j := range parsed.Jobs {
		got = append(got, j.Env)
	}
	if len(parsed.Envs) != 3 || got[0] != 0 || got[1] != 0 || got[2] != 0 || got[3] != 1 || got[4] != 2 {
		t.Errorf("envs %d, job envs %v", len(parsed.Envs), got)
	}
}

func TestWriteValue(t *testing.T) {
	type point struct{ X int }
	x := 3
	tests := []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{true, "true"},
		{5, "5"},
		{int64(-7), "-7"},
		{uint32(7), "7"},
		{5.0, "5.0"},
		{2.5, "2.5"},
		{1e21, "1e+21"},
		{float32(0.5), "0.5"},
		{math.NaN(), "NaN"},
		{math.Inf(-1), "-Infinity"},
		{"a\"b<", `"a\"b\u003c"`},
		{[]any{1, 1.0, nil}, "[1,1.0,null]"},
		{[]string(nil), "[]"},
		{[2]int{1, 2}, "[1,2]"},
		{map[string]any{"b": 1, "a": []int{}}, `{"a":[],"b":1}`},
		{map[any]any{"k": 1}, `{"k":1}`},
		{map[any]any{2: "two", 1: "one"}, `{"__tv_map__":[[1,"one"],[2,"two"]]}`},
		{&x, "3"},
		{point{X: 1}, `{"X":1}`},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := writeValue(&b, tc.in, 0); err != nil || b.String() != tc.want {
			t.Errorf("%#v: got %s, %v; want %s", tc.in, b.String(), err, tc.want)
		}
	}
	deep := any(1)
	for range 200 {
		deep = []any{deep}
	}
	if err := writeValue(new(bytes.Buffer), deep, 0); err == nil {
		t.Error("no error for variables nested 200 deep")
	}
}
