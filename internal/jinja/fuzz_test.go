package jinja

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// FuzzRender renders random template sources with a fixed set of variables.
// A render never panics and never kills the process; it gives an output or
// an *Error that names one of the files and a line inside it; and the same
// render twice gives the same result.
//
//	go test ./internal/jinja -run '^$' -fuzz FuzzRender -fuzztime 3m
//
// New crashers land in testdata/fuzz/FuzzRender and run with go test.
func FuzzRender(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(corpusRoot, "*.j2"))
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range []string{
		"{% if %}", "{% for x in l %}", "{{ '%s' % s }}", "{% include 'inc.j2' %}{% include 't/main.j2' %}",
		"{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "{{ d | tojson(indent=2) }}", "{% raw %}{{ x }}",
		"{#", "{{ l[99] }}", "{% set x = %}", "{{ nope.x }}", "{% filter indent(2) %}{{ s }}{% endfilter %}",
	} {
		f.Add(s)
	}
	vars := func() map[string]any {
		return map[string]any{
			"s": "str", "n": 3, "f": 1.5, "b": true, "none": nil,
			"l": []any{1, "a", nil, 2.5}, "d": map[string]any{"k": "v", "n": 1, "l": []any{1}},
			"base_commit": strings.Repeat("ab", 20), "rounds": nil, "run_pytest": false,
		}
	}
	opts := []config.Jinja{
		{StrictUndefined: true, KeepTrailingNewline: true},
		{TrimBlocks: true, LstripBlocks: true, Autoescape: true},
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Bound the work: loops over range() can nest without end in both
		// engines, and a long source only slows the search.
		if len(src) > 2048 || strings.Count(src, "range") > 1 || strings.Count(src, "for") > 3 {
			t.Skip()
		}
		files := map[string][]byte{
			"fz/t/main.j2": []byte(src),
			"fz/inc.j2":    []byte("inc {{ s }}\n{% if b %}{{ n }}{% endif %}\n"),
		}
		for _, o := range opts {
			e, err := NewEnv(files, "fz", o)
			if err != nil {
				t.Fatal(err)
			}
			out1, err1 := e.renderLocal("t/main.j2", vars())
			checkFuzzError(t, files, err1)
			out2, err2 := e.renderLocal("t/main.j2", vars())
			if out1 != out2 || (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
				t.Fatalf("two renders differ:\n%q %v\n%q %v", out1, err1, out2, err2)
			}
		}
	})
}

func checkFuzzError(t *testing.T, files map[string][]byte, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var je *Error
	if !errors.As(err, &je) {
		t.Fatalf("error %T is not a *jinja.Error: %v", err, err)
	}
	src, ok := files[je.File]
	if !ok {
		t.Fatalf("the error names %q, which is not a file: %v", je.File, err)
	}
	// Jinja2 and gonja end a line at \r\n, \r or \n.
	text := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(src))
	if lines := strings.Count(text, "\n") + 1; je.Line < 0 || je.Line > lines {
		t.Fatalf("line %d is outside %s (%d lines): %v", je.Line, je.File, lines, err)
	}
	if je.Msg == "" || len(je.Msg) > maxMsg+64 {
		t.Fatalf("message of %d bytes: %q", len(je.Msg), je.Msg)
	}
}
