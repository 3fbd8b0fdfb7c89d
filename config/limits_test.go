package config

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestLimitsEffective(t *testing.T) {
	cases := []struct {
		name string
		in   Limits
		want Limits
	}{
		{"unset is the default", Limits{}, DefaultLimits},
		{"more than the ceiling is the ceiling", Limits{RenderOutput: 1 << 40, RenderMemory: 1 << 20, RenderTime: Duration{time.Hour}, Templates: 1e9, VarSets: 1e9, RandomSets: 1e9}, CeilingLimits},
		{"lower is kept", Limits{RenderOutput: 10, RenderMemory: 100, RenderTime: Duration{time.Second}, Templates: 3, VarSets: 2, RandomSets: 1},
			Limits{RenderOutput: 10, RenderMemory: 100, RenderTime: Duration{time.Second}, Templates: 3, VarSets: 2, RandomSets: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.in.Effective(); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestLimitsInConfig(t *testing.T) {
	const head = "version: 1\ngroups:\n  - name: g\n    root: t\n    templates: [{path: \"**\"}]\n"
	const restore = "restore:\n  template: g:x.sh\n  section: {start: a, end: b}\n"
	cases := []struct {
		name, yaml, wantErr string
	}{
		{"a billion random sets is refused", head + restore + "  random: {count: 1000000000}\n", "limits.random_sets allows"},
		{"random sets above a lower limit are refused", head + restore + "  random: {count: 20}\nlimits: {random_sets: 10}\n", "restore.random.count 20 is more than the 10"},
		{"random sets at the limit pass", head + restore + "  random: {count: 10}\nlimits: {random_sets: 10}\n", ""},
		{"a negative limit is refused", head + "limits: {templates: -1}\n", "limits.templates is negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(Path, []byte(c.yaml))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want one with %q", err, c.wantErr)
			}
		})
	}
}

func TestVarSetsUpTo(t *testing.T) {
	g := &Group{Vars: map[string]any{"a": 1}, Matrix: map[string][]any{"x": {1, 2}, "y": {"p", "q", "r"}}}
	sets, total := g.VarSetsUpTo(Template{Matrix: map[string][]any{"z": {true, false}}}, 100)
	var names []string
	for _, s := range sets {
		names = append(names, s.Name)
		if s.Vars["a"] != 1 {
			t.Errorf("set %s lost a: %v", s.Name, s.Vars)
		}
	}
	want := "x=1,y=p,z=true x=1,y=p,z=false x=1,y=q,z=true x=1,y=q,z=false x=1,y=r,z=true x=1,y=r,z=false " +
		"x=2,y=p,z=true x=2,y=p,z=false x=2,y=q,z=true x=2,y=q,z=false x=2,y=r,z=true x=2,y=r,z=false"
	if total != 12 || strings.Join(names, " ") != want {
		t.Errorf("total %d, sets %s", total, strings.Join(names, " "))
	}
	// A matrix bomb: 40 keys of 2 values is 2^40 sets; none is made past the limit.
	bomb := map[string][]any{}
	for i := range 40 {
		bomb[fmt.Sprintf("k%02d", i)] = []any{0, 1}
	}
	sets, total = (&Group{Matrix: bomb}).VarSetsUpTo(Template{}, 64)
	if len(sets) != 64 || total != 65 {
		t.Errorf("bomb: %d sets, total %d", len(sets), total)
	}
	if got := (&Group{Matrix: bomb}).VarSets(Template{}); len(got) != CeilingLimits.VarSets {
		t.Errorf("VarSets of a bomb made %d sets", len(got))
	}
	if sets, total := (&Group{}).VarSetsUpTo(Template{}, 64); total != 1 || len(sets) != 1 || sets[0].Name != "default" {
		t.Errorf("no matrix: %+v %d", sets, total)
	}
}
