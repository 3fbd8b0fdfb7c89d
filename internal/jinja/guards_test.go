package jinja

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestEndlessRecursionIsAnError covers templates that would overflow the Go
// stack, which kills the process: each must end as an *Error.
func TestEndlessRecursionIsAnError(t *testing.T) {
	files := map[string]string{
		"self_include.j2": "x\n{% include 'self_include.j2' %}",
		"self_extends.j2": "{% extends 'self_extends.j2' %}",
		"macro.j2":        "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}",
		"mutual.j2":       "{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}",
		"lib.inc":         "{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}",
		"from_import.j2":  "{% from 'lib.inc' import r %}{{ r(0) }}",
		"deep_ok.j2":      "{% macro m(n) %}{% if n > 0 %}{{ m(n - 1) }}{% else %}bottom{% endif %}{% endmacro %}{{ m(240) }}",
	}
	e := newTestEnv(t, strict, files)
	tests := []struct{ name, msg string }{
		{"self_include.j2", "includes nest more than 1000 levels deep"},
		{"self_extends.j2", "extends nests too deep"},
		{"macro.j2", `macro "m" calls itself more than 400 levels deep`},
		{"mutual.j2", "levels deep"},
		{"from_import.j2", `macro "r" calls itself`},
	}
	for _, tc := range tests {
		_, err := e.Render(tc.name, nil)
		var je *Error
		if !errors.As(err, &je) || !strings.Contains(je.Msg, tc.msg) || len(je.Msg) > maxMsg+10 {
			t.Errorf("%s: error %v, want %q in a message of at most %d bytes", tc.name, err, tc.msg, maxMsg)
		}
	}
	rec := newTestEnv(t, strict, map[string]string{"rec.j2": "a\n{% for x in l recursive %}{{ loop(l) }}{% endfor %}"})
	_, err := rec.Render("rec.j2", map[string]any{"l": []any{1}})
	var je *Error
	if !errors.As(err, &je) || je.Line != 2 || !strings.Contains(je.Msg, "recursive for loops are not supported") {
		t.Errorf("recursive loop: %v", err)
	}
	if out, err := e.Render("deep_ok.j2", nil); err != nil || out != "bottom" {
		t.Errorf("a macro 240 levels deep (Jinja2 renders it): %q %v", out, err)
	}
}

func TestOutputLimit(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"big.j2": "a\n{% for i in range(30) %}{{ chunk }}{% endfor %}"})
	r := NewRenderer(Limits{Output: 2 << 20})
	defer r.Close()
	_, err := r.Render(context.Background(), e, "big.j2", map[string]any{"chunk": strings.Repeat("x", 100<<10)})
	var je *Error
	if !errors.As(err, &je) || !strings.Contains(je.Msg, "larger than the limit of 2 MiB (limits.render_output)") || je.Line != 2 {
		t.Errorf("error %v", err)
	}
}

func TestRangeIsAListAndLeaksNoGoroutine(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{
		"r.j2":    "{{ range(3) | list }} {{ range(1, 4) | join }} {{ range(10, 0, -4) | list }} {{ range(0) | list }} {{ range(3, 1) | list }}",
		"err.j2":  "{{ range(50) | first }}{% for i in range(50) %}{{ nope }}{% endfor %}",
		"zero.j2": "{{ range(1, 5, 0) }}",
		"big.j2":  "{{ range(2000000) | length }}",
	})
	if out, err := e.Render("r.j2", nil); err != nil || out != "[0, 1, 2] 123 [10, 6, 2] [] []" {
		t.Errorf("got %q, %v", out, err)
	}
	before := runtime.NumGoroutine()
	for range 20 {
		if _, err := e.Render("err.j2", nil); err == nil {
			t.Fatal("no error")
		}
	}
	time.Sleep(10 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Errorf("goroutines %d before, %d after 20 renders that stop early in a range()", before, after)
	}
	for _, name := range []string{"zero.j2", "big.j2"} {
		if _, err := e.Render(name, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("Unable to execute macro 'm': ", 100) + "the cause"
	s := shorten(long)
	if len(s) > maxMsg || !strings.HasSuffix(s, "the cause") || !strings.HasPrefix(s, "…: ") {
		t.Errorf("shorten: %d bytes %q", len(s), s)
	}
	if s := shorten("short: message"); s != "short: message" {
		t.Errorf("a short message changed: %q", s)
	}
	noColon := strings.Repeat("é", 500)
	if s := shorten(noColon); len([]rune(s)) > maxMsg || !strings.HasSuffix(s, "é") {
		t.Errorf("no separator: %q", s)
	}
}

// TestMacroKeywordErrorsAreStable: gonja binds keyword arguments in map
// order; with several bad ones the error must still be the same on every
// render, and finding it runs no macro body (a macro that calls itself
// with a bad keyword would otherwise branch at every level).
func TestMacroKeywordErrorsAreStable(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"no parameters", "{%macro greet()#%}{%endmacro%}1{{greet(10=''00='')}}0", "macro 'greet' takes no keyword argument '00'"},
		{"two unknown", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(a=1, z=2, y=3) }}", "macro 'm' takes no keyword argument 'y'"},
		{"twice and unknown", "{% macro m(a, b) %}{% endmacro %}{{ m(1, a=2, z=3) }}", "macro 'm' received 'a' argument twice"},
		{"recursive", "{% macro m(a, c) %}{{ m(a=1, c=2, b=3) }}{% endmacro %}{{ m(a=1, c=2, b=3) }}", "macro 'm' takes no keyword argument 'b'"},
		{"imported", "{% import 'lib.j2' as l %}{{ l.m(a=1, z=2, y=3) }}", "macro 'm' takes no keyword argument 'y'"},
		{"from-imported", "{% from 'lib.j2' import m as k %}{{ k(a=1, z=2, y=3) }}", "macro 'm' takes no keyword argument 'y'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, strict, map[string]string{"t.j2": c.src, "lib.j2": "{% macro m(a) %}{{ a }}{% endmacro %}"})
			for range 20 {
				_, err := e.renderLocal("t.j2", nil)
				if err == nil || !strings.HasSuffix(err.Error(), c.want) {
					t.Fatalf("error %v, want one ending in %q", err, c.want)
				}
			}
		})
	}
}
