package jinja

import (
	"math"
	"strings"
	"testing"
)

func TestPyFloatRepr(t *testing.T) {
	// The wanted strings are Python's repr() of the same floats.
	tests := map[float64]string{
		0: "0.0", math.Copysign(0, -1): "-0.0", 1: "1.0", -2.5: "-2.5", 0.1: "0.1",
		1e15: "1000000000000000.0", 1e16: "1e+16", 1.5e300: "1.5e+300",
		1e-4: "0.0001", 1e-5: "1e-05", 123456789.125: "123456789.125",
		math.Inf(1): "Infinity", math.NaN(): "NaN",
	}
	for f, want := range tests {
		if got := pyFloatRepr(f); got != want {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

func TestToJSONKeysAndErrors(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{
		"ints.j2":  "{{ d | tojson }}",
		"mixed.j2": "{{ d | tojson }}",
		"lit.j2":   "{{ {'b': 1, 'a': [true, none]} | tojson }}",
	})
	out, err := e.Render("ints.j2", map[string]any{"d": map[any]any{10: "x", 2: "y"}})
	if err != nil || out != `{"2": "y", "10": "x"}` {
		t.Errorf("int keys: %q %v", out, err)
	}
	if out, err := e.Render("lit.j2", nil); err != nil || out != `{"a": [true, null], "b": 1}` {
		t.Errorf("dict literal: %q %v", out, err)
	}
	_, err = e.Render("mixed.j2", map[string]any{"d": map[any]any{1: "x", "a": "y"}})
	if err == nil || !strings.Contains(err.Error(), "not supported between") {
		t.Errorf("mixed keys: %v", err)
	}
}
