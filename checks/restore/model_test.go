package restore

import (
	"slices"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
)

func defaultPolicy(t *testing.T) *Policy {
	t.Helper()
	p, err := NewPolicy(config.Default().Restore.Patterns)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicyProtects(t *testing.T) {
	p := defaultPolicy(t)
	cases := map[string]bool{
		"benchmarks/bench.py":        true,
		"sub/benchmark/x.py":         true,
		"asv.conf.json":              true,
		"pkg/asv.conf":               true,
		".snapshots/a/b.json":        true,
		"conftest.py":                true,
		"a/b/conftest.py":            true,
		".github/workflows/ci.yml":   true,
		"tests/test_a.py":            true,
		"src/pkg/tests/data.txt":     true,
		"src/test_x.py":              true,
		"src/x_test.py":              true,
		"src/pkg/core.py":            false,
		"docs/benchmarks.md":         false, // no slash after the folder name
		"mytests/x.py":               false, // not at a path boundary
		"src/pkg/contest.py":         false,
		"src/pkg/conftest.py.bak":    false,
		"src/testing/helpers.py":     false,
		"src/test_x.pyc":             false,
		"github/workflows/ci.yml":    false,
		"snapshots/a.json":           false,
		"src/x_test.py/inner/y.txt":  false,
		"src/latest_test.pyx":        false,
		"README.md":                  false,
		"benchmarks":                 false, // a file named like the folder
		"src/pkg/asv_conf.py":        false,
		"deep/a/b/c/benchmarks/z.py": true,
	}
	for path, want := range cases {
		if got := p.Protects(path); got != want {
			t.Errorf("Protects(%q) = %v, want %v", path, got, want)
		}
	}
	if _, err := NewPolicy([]string{"("}); err == nil {
		t.Error("a bad pattern compiles")
	}
}

func TestExpect(t *testing.T) {
	base := fixture.Tree{
		"src/core.py":        fixture.File("slow\n"),
		"tests/test_core.py": fixture.File("assert f() == 1\n"),
		"tests/run.sh":       fixture.Exec("#!/bin/sh\n"),
		"benchmarks/b.py":    fixture.File("b\n"),
		"benchmarks/link":    fixture.Symlink("b.py"),
		"conftest.py":        fixture.File("c\n"),
	}
	cases := []struct {
		name      string
		work      func(w fixture.Tree)
		ran       bool
		discarded []string
		check     func(t *testing.T, want fixture.Tree)
	}{
		{name: "no change", ran: true, work: func(fixture.Tree) {}, discarded: nil},
		{name: "fix kept, test restored", ran: true,
			work: func(w fixture.Tree) {
				w["src/core.py"] = fixture.File("fast\n")
				w["tests/test_core.py"] = fixture.File("assert True\n")
			},
			discarded: []string{"tests/test_core.py"},
			check: func(t *testing.T, want fixture.Tree) {
				if string(want["src/core.py"].Data) != "fast\n" {
					t.Error("the fix is not kept")
				}
				if string(want["tests/test_core.py"].Data) != "assert f() == 1\n" {
					t.Error("the test is not restored")
				}
			}},
		{name: "added protected file deleted, added source kept", ran: true,
			work: func(w fixture.Tree) {
				w["benchmarks/sp ace.py"] = fixture.File("x\n")
				w["src/new.py"] = fixture.File("y\n")
			},
			discarded: []string{"benchmarks/sp ace.py"},
			check: func(t *testing.T, want fixture.Tree) {
				if _, ok := want["benchmarks/sp ace.py"]; ok {
					t.Error("the added benchmark stays")
				}
				if _, ok := want["src/new.py"]; !ok {
					t.Error("the added source file is gone")
				}
			}},
		{name: "deleted protected file comes back, deleted source stays deleted", ran: true,
			work: func(w fixture.Tree) {
				delete(w, "conftest.py")
				delete(w, "src/core.py")
			},
			discarded: []string{"conftest.py"},
			check: func(t *testing.T, want fixture.Tree) {
				if _, ok := want["conftest.py"]; !ok {
					t.Error("conftest.py does not come back")
				}
				if _, ok := want["src/core.py"]; ok {
					t.Error("the deleted source file comes back")
				}
			}},
		{name: "mode and type changes", ran: true,
			work: func(w fixture.Tree) {
				w["tests/run.sh"] = fixture.File("#!/bin/sh\n")
				w["benchmarks/b.py"] = fixture.Symlink("../src/core.py")
				w["benchmarks/link"] = fixture.Symlink("other.py")
			},
			discarded: []string{"benchmarks/b.py", "benchmarks/link", "tests/run.sh"},
			check: func(t *testing.T, want fixture.Tree) {
				if want["tests/run.sh"].Mode != fixture.ModeExec || want["benchmarks/b.py"].IsSymlink() ||
					string(want["benchmarks/link"].Data) != "b.py" {
					t.Errorf("not back at base: %+v", want)
				}
			}},
		{name: "same content written again is no change", ran: true,
			work: func(w fixture.Tree) { w["tests/test_core.py"] = fixture.File("assert f() == 1\n") },
		},
		{name: "step must not run", ran: false,
			work: func(w fixture.Tree) {
				w["tests/test_core.py"] = fixture.File("assert True\n")
				w["benchmarks/new.py"] = fixture.File("n\n")
			},
			check: func(t *testing.T, want fixture.Tree) {
				if string(want["tests/test_core.py"].Data) != "assert True\n" {
					t.Error("the tree changed although the step must not run")
				}
				if _, ok := want["benchmarks/new.py"]; !ok {
					t.Error("an added file is gone although the step must not run")
				}
			}},
	}
	p := defaultPolicy(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work := base.Clone()
			c.work(work)
			exp := p.Expect(base, work, c.ran, "reason")
			if exp.Ran != c.ran {
				t.Errorf("Ran = %v", exp.Ran)
			}
			if !slices.Equal(exp.Discarded, c.discarded) && (len(exp.Discarded) != 0 || len(c.discarded) != 0) {
				t.Errorf("discarded %q, want %q", exp.Discarded, c.discarded)
			}
			if exp.Discarded == nil || exp.Remaining == nil || len(exp.Remaining) != 0 {
				t.Errorf("discarded and remaining must be non-nil lists, remaining empty: %q %q", exp.Discarded, exp.Remaining)
			}
			if c.check != nil {
				c.check(t, exp.Tree)
			}
			// Every expected file is either the base's or the agent's.
			for path, e := range exp.Tree {
				if b, ok := base[path]; ok && b.Same(e) {
					continue
				}
				if w, ok := work[path]; ok && w.Same(e) {
					continue
				}
				t.Errorf("%s: the model invents content", path)
			}
		})
	}
}
