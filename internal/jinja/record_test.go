package jinja

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestRenderOfRecord: the render of record is Python Jinja2's where it is
// installed, gonja's otherwise; errors name the file and line, and an
// unclosed block names the line that opens it.
func TestRenderOfRecord(t *testing.T) {
	if _, _, ok := FindPython(context.Background()); !ok {
		t.Skip("no python3 with jinja2 on this machine: not run")
	}
	noPython := func(context.Context) (string, string, bool) { return "", "", false }
	vars := map[string]any{"name": "world", "nothing": nil, "flag": true}
	cases := []struct {
		name, src string
		find      FindPythonFunc
		want      string // output
		jinja2    bool   // Engine.Jinja2
		errLine   int    // > 0: an error at this line
		errHas    string
	}{
		{name: "None is None", src: "--rounds {{ nothing }}\n", want: "--rounds None\n", jinja2: true},
		{name: "gonja without Python", src: "--rounds {{ nothing }}\n", find: noPython, want: "--rounds \n"},
		{name: "gonja fails, Jinja2 renders", src: "{{ '%s-%s' % (name, 1) }}\n", want: "world-1\n", jinja2: true},
		{name: "Jinja2 fails, gonja renders", src: "a\n{{ name|format(1) }}\n", jinja2: true, errLine: 2, errHas: "Jinja2: TypeError"},
		{name: "both fail, gonja without a line", src: "a\nb\n{{ '%s %s' % (name,) }}\n", jinja2: true, errLine: 3, errHas: "Jinja2: TypeError"},
		{name: "unclosed if", src: "a\n{% if flag %}\nb\n{% for x in [1] %}{{ x }}{% endfor %}\nc\nd\n", jinja2: true, errLine: 2, errHas: "if"},
		{name: "unclosed if with dashes", src: "a\nb\n{%- if flag -%}\nb\nc\n", jinja2: true, errLine: 3, errHas: "if"},
		{name: "unclosed for inside a closed if", src: "{% if flag %}\n{% for x in [1] %}\n{{ x }}\n{% endif %}\n", jinja2: true, errLine: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := NewEnv(map[string][]byte{"tpl/t.sh": []byte(c.src)}, "tpl", config.Jinja{StrictUndefined: true, KeepTrailingNewline: true})
			if err != nil {
				t.Fatal(err)
			}
			out, eng, err := RenderOfRecord(context.Background(), e, "t.sh", vars, DefaultLimits, c.find)
			if eng.Jinja2 != c.jinja2 {
				t.Errorf("engine %s, want Jinja2 %v", eng, c.jinja2)
			}
			if c.errLine > 0 {
				je, ok := err.(*Error)
				if !ok || je.File != "tpl/t.sh" || je.Line != c.errLine || !strings.Contains(je.Msg, c.errHas) {
					t.Fatalf("error %v, want tpl/t.sh:%d with %q", err, c.errLine, c.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out != c.want {
				t.Errorf("output %q, want %q", out, c.want)
			}
		})
	}
}

// TestPyErrorNamesTheOpeningLine: Jinja2 names the last line of a template
// that ends inside a block; the error names the block's first line.
func TestPyErrorNamesTheOpeningLine(t *testing.T) {
	e, err := NewEnv(map[string][]byte{"r/a.j2": []byte("x\n{% if a %}\ny\nz\n")}, "r", config.Jinja{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		res  PyResult
		want string
	}{
		{PyResult{Err: "TemplateSyntaxError: Unexpected end of template. Jinja was looking for the following tags: 'endif'.", File: "a.j2", Line: 4}, "r/a.j2:2: Jinja2: TemplateSyntaxError"},
		{PyResult{Err: "UndefinedError: 'b' is undefined", File: "a.j2", Line: 3}, "r/a.j2:3: Jinja2: UndefinedError"},
		{PyResult{Err: "TypeError: x"}, "r/a.j2: Jinja2: TypeError"},
	}
	for _, c := range cases {
		if got := PyError(e, "a.j2", c.res).Error(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%q, want the prefix %q", got, c.want)
		}
	}
}
