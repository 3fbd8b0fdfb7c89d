package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVarSetsCartesianProductInFixedOrder(t *testing.T) {
	g := Group{
		Vars:   map[string]any{"owner": "o", "rounds": 1},
		Matrix: map[string][]any{"run_pytest": {true, false}, "rounds": {5, nil}},
	}
	sets := g.VarSets(Template{Vars: map[string]any{"owner": "t"}})
	var names []string
	for _, s := range sets {
		names = append(names, s.Name)
		if s.Vars["owner"] != "t" {
			t.Errorf("%s: template vars must override group vars, owner = %v", s.Name, s.Vars["owner"])
		}
	}
	want := []string{
		"rounds=5,run_pytest=true", "rounds=5,run_pytest=false",
		"rounds=null,run_pytest=true", "rounds=null,run_pytest=false",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	if v, ok := sets[2].Vars["rounds"]; !ok || v != nil {
		t.Errorf("rounds=null must be a present nil, got %v %v", v, ok)
	}
	if sets[0].Vars["rounds"] != 5 {
		t.Errorf("matrix must override vars, rounds = %v", sets[0].Vars["rounds"])
	}
	// The sets must not share maps.
	sets[0].Vars["x"] = 1
	if _, ok := sets[1].Vars["x"]; ok {
		t.Error("variable sets share one map")
	}
}

func TestVarSetsWithoutMatrix(t *testing.T) {
	sets := (&Group{Vars: map[string]any{"a": 1}}).VarSets(Template{})
	if len(sets) != 1 || sets[0].Name != "default" || sets[0].Vars["a"] != 1 {
		t.Fatalf("got %+v", sets)
	}
}

func TestGroupOfLongestRootWins(t *testing.T) {
	c := &Config{Groups: []Group{{Name: "outer", Root: "src"}, {Name: "inner", Root: "src/t/"}}}
	cases := []struct{ path, group, rel string }{
		{"src/t/x.sh", "inner", "x.sh"},
		{"src/y.sh", "outer", "y.sh"},
		{"srcx/y.sh", "", ""},
		{"src", "", ""},
	}
	for _, tc := range cases {
		g, rel, ok := c.GroupOf(tc.path)
		name := ""
		if ok {
			name = g.Name
		}
		if name != tc.group || rel != tc.rel {
			t.Errorf("GroupOf(%q) = %q %q, want %q %q", tc.path, name, rel, tc.group, tc.rel)
		}
	}
}

func TestTemplateForHonoursExclude(t *testing.T) {
	g := Group{Templates: []Template{{Path: "**"}}, Exclude: []string{"env/*.inc"}}
	if len(g.TemplateFor("env/a.inc")) != 0 {
		t.Error("excluded file is a template")
	}
	if len(g.TemplateFor("env/sub/a.inc")) != 1 {
		t.Error("exclude * must not cross folders")
	}
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"**", "a/b/c.sh", true},
		{"**/*.j2", "final.md.j2", true},
		{"**/*.j2", "a/b/final.md.j2", true},
		{"**/*.j2", "a/b/final.md", false},
		{"tests/*.sh", "tests/test.sh", true},
		{"tests/*.sh", "tests/sub/test.sh", false},
		{"src/**/x", "src/x", true},
		{"src/**/x", "src/a/b/x", true},
		{"src/**", "src", false},
		{"release/*", "release/template-v1", true},
		{"release/*", "release/a/b", false},
		{"main", "main", true},
		{"[", "[", false},
		{"a b/*.py", "a b/c d.py", true},
	}
	for _, tc := range cases {
		if got := MatchGlob(tc.pat, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}
