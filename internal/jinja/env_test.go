package jinja

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/config"
)

var strict = config.Jinja{StrictUndefined: true, KeepTrailingNewline: true}

// newTestEnv makes an environment rooted at "repo/tpl" from sources keyed
// by their name under that root.
func newTestEnv(t testing.TB, opts config.Jinja, files map[string]string) *Env {
	t.Helper()
	m := map[string][]byte{"other/ignored.txt": []byte("{{ outside }}")}
	for k, v := range files {
		m["repo/tpl/"+k] = []byte(v)
	}
	e, err := NewEnv(m, "repo/tpl", opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestErrorsNameFileAndLine(t *testing.T) {
	common := map[string]string{
		"inc/undef.inc":   "first\n{{ undefined_in_include }}\n",
		"inc/syntax.inc":  "one\ntwo\n{% if %}x{% endif %}\n",
		"inc/panic.inc":   "one\n{{ '%s' % s }}\n",
		"inc/nested.inc":  "n1\n{% include 'inc/undef.inc' %}\n",
		"inc/ok.inc":      "ok {{ s }}\n",
		"inc/badname.inc": "\n\n{{ s | no_such_filter }}\n",
		"inc/macros.inc":  "{% macro count(n) %}{% if n > 0 %}{{ count(n - 1) }}{% endif %}{% endmacro %}",
	}
	tests := []struct {
		name, src string
		file      string // repository path, "" means the template itself
		line      int
		msg       string
		panic     bool
	}{
		{"empty if", "a\nb\n{% if %}x{% endif %}\n", "", 3, "syntax error", false},
		{"empty elif", "a\n{% if s %}\nb\n{% elif %}x{% endif %}\n", "", 4, "syntax error", false},
		{"unclosed for", "a\n{% for x in l %}\nb\nc\n", "", 2, `"for" block`, false},
		{"unclosed inner if names the if", "a\n{% for x in l %}\n{% if x %}\nb\n{% endfor %}\n", "", 3, "\"if\" block that starts here", false},
		{"unclosed print", "a\n{{ s \n", "", 2, "'}}' expected", false},
		{"bad expression", "a\n{{ s + }}\n", "", 2, "syntax error", false},
		{"unknown tag", "a\n{% frob %}\n", "", 2, "'frob' not found", false},
		{"unknown filter in a branch that does not run", "a\n{% if false %}\n{{ s | nosuch }}\n{% endif %}\n", "", 3, "no filter named 'nosuch'", false},
		{"unknown test", "a\n{% if s is nosuch %}{% endif %}\n", "", 2, "no test named 'nosuch'", false},
		{"unclosed comment", "a\n{# x\n\n", "", 2, "unclosed comment", false},
		{"undefined variable", "a\nb\nc {{ nope }}\n", "", 3, "'nope' is undefined", false},
		{"undefined in nested blocks", "a\n{% if s %}\n{% for i in l %}\n{{ nope }}\n{% endfor %}\n{% endif %}\n", "", 4, "'nope' is undefined", false},
		{"undefined in set", "a\n{% set q = nope %}\n", "", 2, "'nope' is undefined", false},
		{"undefined attribute", "a\n{{ d.nope }}\n", "", 2, "attribute 'nope' not found", false},
		{"undefined in include", "x\n{% include 'inc/undef.inc' %}\n", "repo/tpl/inc/undef.inc", 2, "'undefined_in_include' is undefined", false},
		{"undefined two includes deep", "x\n{% include 'inc/nested.inc' %}\n", "repo/tpl/inc/undef.inc", 2, "'undefined_in_include' is undefined", false},
		{"syntax error in include", "x\n{% include 'inc/syntax.inc' %}\n", "repo/tpl/inc/syntax.inc", 3, "syntax error", false},
		{"unknown filter in include", "x\n{% include 'inc/badname.inc' %}\n", "repo/tpl/inc/badname.inc", 3, "no filter named", false},
		{"missing include", "x\n\n{% include 'inc/none.inc' %}\n", "", 3, `"inc/none.inc" not found`, false},
		{"imported macro that calls itself", "x\n{% import 'inc/macros.inc' as m %}{{ m.count(2) }}", "", 2, "function 'macro'", false},
		{"percent format panics in gonja", "a\n{{ '%s' % s }}\n", "", 0, "panicked", true},
		{"panic inside include", "a\n{% include 'inc/panic.inc' %}\n", "repo/tpl/inc/panic.inc", 0, "panicked", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"t/main.sh": tc.src}
			for k, v := range common {
				files[k] = v
			}
			e := newTestEnv(t, strict, files)
			out, err := e.Render("t/main.sh", map[string]any{"s": "str", "l": []any{1, 2}, "d": map[string]any{}})
			if err == nil {
				t.Fatalf("no error; output %q", out)
			}
			var je *Error
			if !errors.As(err, &je) {
				t.Fatalf("error %T is not a *jinja.Error: %v", err, err)
			}
			wantFile := tc.file
			if wantFile == "" {
				wantFile = "repo/tpl/t/main.sh"
			}
			if je.File != wantFile || je.Line != tc.line || je.Panic != tc.panic {
				t.Errorf("got file %q line %d panic %v, want %q line %d panic %v (%v)", je.File, je.Line, je.Panic, wantFile, tc.line, tc.panic, err)
			}
			if !strings.Contains(je.Msg, tc.msg) {
				t.Errorf("message %q does not contain %q", je.Msg, tc.msg)
			}
			if strings.Contains(je.Msg, tc.src) || strings.Contains(je.Msg, "<Token[") || strings.Contains(je.Msg, "internal/jinja") {
				t.Errorf("message holds the source or a token dump: %q", je.Msg)
			}
		})
	}
}

func TestParseAndRenderMessagesNeverHoldTheSource(t *testing.T) {
	src := strings.Repeat("line of text\n", 50) + "{% if %}{% endif %}\n"
	e := newTestEnv(t, strict, map[string]string{"big.txt": src})
	_, err := e.parseLocal("big.txt")
	if err == nil || strings.Contains(err.Error(), "line of text") {
		t.Fatalf("error %v", err)
	}
	if je := err.(*Error); je.Line != 51 {
		t.Errorf("line %d, want 51", je.Line)
	}
}

func TestIncludeResolvesFromTheLoaderRoot(t *testing.T) {
	files := map[string]string{
		"tests/test.sh":      "{% include 'a/b.inc' %}|{% include './a//b.inc' %}|{% include '/a/b.inc' %}",
		"tests/a/b.inc":      "WRONG: relative to the including file",
		"a/b.inc":            "root b, then {% include 'c.inc' %}",
		"a/c.inc":            "WRONG: relative to a/",
		"c.inc":              "root c",
		"tests/list.sh":      "{% include ['missing.inc', 'c.inc'] %}",
		"tests/ignore.sh":    "[{% include 'missing.inc' ignore missing %}]",
		"tests/escape.sh":    "{% include '../outside' %}",
		"tests/with_ctx.sh":  "{% include 'c.inc' with context %}",
		"tests/expr.sh":      "{% include dir ~ '/b.inc' %}",
		"tests/notfound.sh":  "{% include 'tests/a/nope.inc' %}",
		"tests/set_scope.sh": "{% set v = 1 %}{% include 'set.inc' %}{{ v }}",
		"set.inc":            "{{ v }}{% set v = 2 %}{{ v }}",
	}
	e := newTestEnv(t, strict, files)
	tests := []struct{ name, want, err string }{
		{"tests/test.sh", "root b, then root c|root b, then root c|root b, then root c", ""},
		{"tests/list.sh", "root c", ""},
		{"tests/ignore.sh", "[]", ""},
		{"tests/with_ctx.sh", "root c", ""},
		{"tests/expr.sh", "root b, then root c", ""},
		{"tests/set_scope.sh", "121", ""},
		{"tests/escape.sh", "", `"../outside" not found`},
		{"tests/notfound.sh", "", `"tests/a/nope.inc" not found`},
	}
	for _, tc := range tests {
		out, err := e.Render(tc.name, map[string]any{"dir": "a"})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || out != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, out, err, tc.want)
		}
	}
}

func TestParseNames(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"a/b.txt": "b"})
	for _, name := range []string{"a/b.txt", "./a/b.txt", "a//b.txt", "/a/b.txt"} {
		tpl, err := e.parseLocal(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if tpl.name != "a/b.txt" {
			t.Errorf("%s: name %q", name, tpl.name)
		}
	}
	for _, name := range []string{"a/../a/b.txt", "", "missing.txt", "../tpl/a/b.txt"} {
		_, err := e.parseLocal(name)
		var je *Error
		if !errors.As(err, &je) || je.File == "" || !strings.Contains(je.Msg, "not found") {
			t.Errorf("%q: error %v", name, err)
		}
	}
	if _, ok := e.Source("ignored.txt"); ok {
		t.Error("a file outside the root is in the environment")
	}
}

func TestNewEnvRoots(t *testing.T) {
	files := map[string][]byte{"top.txt": []byte("top"), "d/in.txt": []byte("in")}
	for _, root := range []string{"", ".", "/", "./"} {
		e, err := NewEnv(files, root, strict)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := e.Render("d/in.txt", nil); err != nil || out != "in" {
			t.Errorf("root %q: %q %v", root, out, err)
		}
		je := new(Error)
		if _, err := e.Render("d/none", nil); !errors.As(err, &je) || je.File != "d/none" {
			t.Errorf("root %q: error %v", root, err)
		}
	}
	e, _ := NewEnv(files, "d/", strict)
	if e.Root() != "d" || len(e.Sources()) != 1 {
		t.Errorf("root %q sources %v", e.Root(), e.Sources())
	}
}

func TestNoneLiteral(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"t": "{{ x is none }} {{ x == none }} {{ y is not none }}"})
	out, err := e.Render("t", map[string]any{"x": nil, "y": 5})
	if err != nil || out != "True True True" {
		t.Fatalf("got %q, %v", out, err)
	}
}

func TestConcurrentRenders(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{
		"t.sh":  "sha={{ sha }}\n{% include 'i.inc' %}{% for r in range(rounds) %}{{ loop.index }}{% endfor %}\n",
		"i.inc": "inc {{ sha[:7] }}\n",
	})
	tpl, err := e.parseLocal("t.sh")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				sha := fmt.Sprintf("%040x", g*1000+i)
				want := fmt.Sprintf("sha=%s\ninc %s\n123\n", sha, sha[:7])
				if out, err := tpl.render(map[string]any{"sha": sha, "rounds": 3}, DefaultLimits.Output); err != nil || out != want {
					errs <- fmt.Errorf("got %q, %v; want %q", out, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRenderTo: renderTo empties the buffer first, and after an error the
// next render into the same buffer holds only its own output.
func TestRenderTo(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"t.txt": "{{ s }}{% if fail %}{{ missing }}{% endif %}"})
	tpl, err := e.parseLocal("t.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, c := range []struct {
		s    string
		fail bool
	}{{"long output", false}, {"half", true}, {"ok", false}, {"", false}} {
		err := tpl.renderTo(&out, map[string]any{"s": c.s, "fail": c.fail}, DefaultLimits.Output)
		if c.fail {
			if err == nil {
				t.Errorf("%d: no error", i)
			}
			continue
		}
		if err != nil || out.String() != c.s {
			t.Errorf("%d: %q %v, want %q", i, out.String(), err, c.s)
		}
	}
}

// TestSearchEnvResolvesAsJinja: a loader of several folders takes a name
// from the first folder that has it, so an include from one folder finds a
// file of the next, and a name both have is the first one's.
func TestSearchEnvResolvesAsJinja(t *testing.T) {
	files := map[string][]byte{
		"tpl/run.sh":       []byte("{% include 'common.sh' %}{% include 'both.sh' %}"),
		"tpl/both.sh":      []byte("first"),
		"shared/common.sh": []byte("common;"),
		"shared/both.sh":   []byte("second"),
	}
	e, err := NewSearchEnv(files, "tpl", []string{"tpl", "shared"}, strict)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.Render("run.sh", nil); err != nil || out != "common;first" {
		t.Errorf("render %q %v, want the include from shared/ and both.sh from tpl/", out, err)
	}
	alone, _ := NewEnv(files, "tpl", strict)
	if _, err := alone.Render("run.sh", nil); err == nil {
		t.Error("without the search path the include of common.sh renders")
	}
}
