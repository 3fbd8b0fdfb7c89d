package restore

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/formula-code/template-verify/internal/fixture"
)

func TestCompareTrees(t *testing.T) {
	p := defaultPolicy(t)
	base := fixture.Tree{
		"src/core.py":        fixture.File("slow\n"),
		"tests/test_core.py": fixture.File("assert f()\n"),
		"tests/run.sh":       fixture.Exec("#!/bin/sh\n"),
		"benchmarks/link":    fixture.Symlink("b.py"),
		"benchmarks/b.py":    fixture.File("b\n"),
	}
	work := base.Clone()
	work["src/core.py"] = fixture.File("fast\n")
	work["tests/test_core.py"] = fixture.File("assert True\n")
	work["benchmarks/sp ace.py"] = fixture.File("x\n")
	work["src/new.py"] = fixture.File("new\n")
	exp := p.Expect(base, work, true, "")

	real := exp.Tree.Clone()
	if d := compareTrees(p, exp, real, base, work); len(d) != 0 {
		t.Fatalf("equal trees differ: %q", d)
	}
	real["tests/test_core.py"] = work["tests/test_core.py"] // not restored
	real["benchmarks/sp ace.py"] = work["benchmarks/sp ace.py"]
	real["src/core.py"] = base["src/core.py"] // fix lost
	delete(real, "src/new.py")
	real["tests/run.sh"] = fixture.File("#!/bin/sh\n")
	real["benchmarks/link"] = fixture.Symlink("elsewhere")
	real["benchmarks/b.py"] = fixture.Symlink("b2.py")
	real["made/by/step"] = fixture.File("?\n")
	want := []string{
		"benchmarks/b.py: is a symlink, the model expects a regular file",
		"benchmarks/link: symlink points to \"elsewhere\", the model expects \"b.py\"",
		"benchmarks/sp ace.py: still present, the model deletes it",
		"made/by/step: present, but the model expects no such file",
		"src/core.py: content is back at base, the model keeps the agent's change",
		"src/new.py: missing, the model keeps the agent's file",
		"tests/run.sh: mode is 100644, the model expects 100755",
		"tests/test_core.py: content differs from base",
	}
	if got := compareTrees(p, exp, real, base, work); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	delete(real, "tests/test_core.py")
	real["src/core.py"] = fixture.File("other\n")
	got := compareTrees(p, exp, real, base, work)
	for _, w := range []string{"tests/test_core.py: missing, the model restores it from base", "src/core.py: content differs from the agent's version"} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
}

func TestCompareReportRefusesOddFiles(t *testing.T) {
	ran := Expectation{Ran: true, Discarded: []string{}, Remaining: []string{}}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("/etc/hostname", link); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{fifo, link} {
		got, _ := compareReport(dir, filepath.Base(f), "/logs/r.json", ran, "x", defaultReportKeys)
		if len(got) != 1 || got[0] != "the report at /logs/r.json is not a regular file" {
			t.Errorf("%s: %q", f, got)
		}
	}
}

func TestCompareReport(t *testing.T) {
	ran := Expectation{Ran: true, Discarded: []string{"a b.py", "tests/x.py"}, Remaining: []string{}}
	notRan := Expectation{Ran: false, Reason: "no baseline sha file"}
	const sha = "0123456789abcdef0123456789abcdef01234567"
	cases := []struct {
		name   string
		report string // "" means no file
		exp    Expectation
		want   []string
	}{
		{"match", `{"ran": true, "base": "` + sha + `", "discarded": ["tests/x.py", "a b.py"], "remaining": []}`, ran, nil},
		{"duplicates are one path", `{"ran": true, "base": "` + sha + `", "discarded": ["a b.py", "a b.py", "tests/x.py"], "remaining": []}`, ran, nil},
		{"no report", "", ran, []string{"the step wrote no report at /logs/r.json"}},
		{"no report when not run", "", notRan, nil},
		{"ran false when not run", `{"ran": false, "error": "no baseline sha file"}`, notRan, nil},
		{"ran true when it must not run", `{"ran": true, "base": "x", "discarded": [], "remaining": []}`, notRan,
			[]string{"report.ran is true, the model expects false (no baseline sha file)"}},
		{"ran false with error", `{"ran": false, "error": "boom"}`, ran, []string{"report.ran is false, the model expects true (the report says: boom)"}},
		{"bad json", `{"ran": true,`, ran, []string{"the report is not valid JSON: unexpected end of JSON input"}},
		{"no ran key", `{}`, ran, []string{"the report has no \"ran\" key"}},
		{"missing keys", `{"ran": true}`, ran, []string{"report.base is missing", "report.discarded is missing", "report.remaining is missing"}},
		{"wrong lists", `{"ran": true, "base": "HEAD", "discarded": ["tests/x.py", "extra.py"], "remaining": ["z", "a"]}`, ran, []string{
			`report.base is "HEAD", the model expects "` + sha + `"`,
			"report.discarded misses a b.py",
			"report.discarded lists extra.py, the model does not",
			"report.remaining is not empty: a, z",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "r.json")
			if c.report != "" {
				if err := os.WriteFile(file, []byte(c.report), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, _ := compareReport(filepath.Dir(file), "r.json", "/logs/r.json", c.exp, sha, defaultReportKeys)
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
