package synccheck

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
)

const syncConfig = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {task: demo}
    templates:
      - path: "**"
sync:
  groups:
    - name: patterns
      copies:
        - {path: "t:test.sh", bash: pats, drop: ["-e"], only_here: ["(^|/)tests?/"]}
        - {path: grader/gates.py, python: PATTERNS}
`

// testSh renders to a script whose array is pats; {{ task }} proves it is
// rendered (the strict group fails without the variable).
func testSh(pats ...string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n# task {{ task }}\npats=(\n")
	for _, p := range pats {
		b.WriteString("  -e '" + p + "'\n")
	}
	b.WriteString(")\n")
	return b.String()
}

// defaultCfg has a harbor group and no sync block: datasmith's default
// sync group applies.
const defaultCfg = `version: 1
groups:
  - name: harbor
    root: tpl
    jinja: {strict_undefined: true}
    vars: {task: demo}
    templates:
      - path: "**"
`

func dsTestSh(pats ...string) string {
	return strings.Replace(testSh(pats...), "pats=(", "_fc_restore_patterns=(", 1)
}

func gatesPy(pats ...string) string {
	var b strings.Builder
	b.WriteString("import re\n\nPATTERNS = [\n")
	for _, p := range pats {
		b.WriteString("    r\"" + p + "\",\n")
	}
	b.WriteString("]\n")
	return b.String()
}

const (
	bench = `(^|/)benchmarks?/`
	asv   = `(^|/)asv\.conf`
	gh    = `(^|/)\.github/`
	tests = `(^|/)tests?/`
)

// input builds a repository from base files and head files on top
// (checktest.Deleted deletes), with each side's configuration.
func input(t *testing.T, baseCfg, headCfg string, base, head map[string]string) *checks.Input {
	t.Helper()
	return checktest.PR(t, baseCfg, headCfg, base, head)
}

func findingsText(r checks.Result) string {
	var sb strings.Builder
	for _, f := range r.Findings {
		sb.WriteString(string(f.Level) + " " + f.Path + ":" + strconv.Itoa(f.Line) + " " + f.Message + "\n" + f.Details + "\n")
	}
	return sb.String()
}

func TestSync(t *testing.T) {
	t.Parallel()
	equalBase := map[string]string{"tpl/test.sh": testSh(bench, asv), "grader/gates.py": gatesPy(bench, asv)}
	strictCfg := "pre_existing: fail\n" + syncConfig
	tests := []struct {
		name             string
		baseCfg, headCfg string
		base, head       map[string]string
		want             checks.Conclusion
		wantText         []string // in the findings
		wantNoFindings   bool
	}{
		{name: "the change makes equal copies differ", base: equalBase,
			head: map[string]string{"tpl/test.sh": testSh(bench, asv, gh)},
			want: checks.Failure,
			wantText: []string{"failure grader/gates.py:4 Sync group patterns: grader/gates.py lacks 1 item that tpl/test.sh has. They were equal at the base.",
				`(^|/)\.github/    (tpl/test.sh:6)`}},
		{name: "an item removed from one copy", base: equalBase,
			head: map[string]string{"grader/gates.py": gatesPy(bench)},
			want: checks.Failure,
			wantText: []string{"failure grader/gates.py:4 Sync group patterns: grader/gates.py lacks 1 item that tpl/test.sh has.",
				`(^|/)asv\.conf    (tpl/test.sh:5)`}},
		{name: "an item removed from the template", base: equalBase,
			head: map[string]string{"tpl/test.sh": testSh(asv)},
			want: checks.Failure,
			wantText: []string{"failure tpl/test.sh:4 Sync group patterns: tpl/test.sh (rendered) lacks 1 item that grader/gates.py has.",
				`(^|/)benchmarks?/    (grader/gates.py:4)`}},
		{name: "near miss: both copies change the same way", base: equalBase,
			head: map[string]string{"tpl/test.sh": testSh(asv, gh, bench), "grader/gates.py": gatesPy(bench, asv, gh)},
			want: checks.Success, wantNoFindings: true},
		{name: "an only_here item is allowed", base: equalBase,
			head: map[string]string{"tpl/test.sh": testSh(bench, asv, tests)},
			want: checks.Success, wantNoFindings: true},
		{name: "already different at the base is a warning",
			base: map[string]string{"tpl/test.sh": testSh(bench), "grader/gates.py": gatesPy(bench, asv)},
			head: map[string]string{"tpl/test.sh": testSh(bench) + "# touched\n"},
			want: checks.Success, wantText: []string{"warning tpl/test.sh:4 ", "it fails before this change"}},
		{name: "already different with pre_existing: fail", baseCfg: strictCfg, headCfg: strictCfg,
			base: map[string]string{"tpl/test.sh": testSh(bench), "grader/gates.py": gatesPy(bench, asv)},
			head: map[string]string{"tpl/test.sh": testSh(bench) + "# touched\n"},
			want: checks.Failure, wantText: []string{"failure tpl/test.sh:4 ", "it fails before this change"}},
		{name: "a copy missing at base and head is not a pass",
			base: map[string]string{"tpl/test.sh": testSh(bench)},
			head: map[string]string{"tpl/test.sh": testSh(bench, asv)},
			want: checks.NotRun, wantText: []string{"warning grader/gates.py:0 Sync group patterns: grader/gates.py is not in the repository"}},
		{name: "the default's grader file absent at base and head: skipped, reported missing", baseCfg: defaultCfg,
			base: map[string]string{"tpl/tests/test.sh": dsTestSh(bench)},
			head: map[string]string{"tpl/tests/test.sh": dsTestSh(bench, asv)},
			want: checks.Skipped, wantText: []string{"warning fcrl/grading/gates.py:0 Sync group restore-patterns is a default. At the base and at the head, fcrl/grading/gates.py is not in the repository."}},
		{name: "the same with pre_existing: fail", baseCfg: "pre_existing: fail\n" + defaultCfg,
			base: map[string]string{"tpl/tests/test.sh": dsTestSh(bench)},
			head: map[string]string{"tpl/tests/test.sh": dsTestSh(bench, asv)},
			want: checks.Skipped, wantText: []string{"warning fcrl/grading/gates.py:0 "}},
		{name: "the default compares datasmith's copies", baseCfg: defaultCfg,
			base: map[string]string{"tpl/tests/test.sh": dsTestSh(bench), "fcrl/grading/gates.py": strings.Replace(gatesPy(bench), "PATTERNS", "PROTECTED_PATCH_PATTERNS", 1)},
			head: map[string]string{"tpl/tests/test.sh": dsTestSh(bench, asv, tests)},
			want: checks.Failure, wantText: []string{"fcrl/grading/gates.py lacks 1 item that tpl/tests/test.sh has. They were equal at the base."}},
		{name: "a folder is not a copy", baseCfg: strings.Replace(syncConfig, "path: grader/gates.py", "path: grader", 1), base: equalBase,
			head: map[string]string{"tpl/test.sh": testSh(bench, asv, gh)},
			want: checks.NotRun, wantText: []string{"grader is a folder, not a file"}},
		{name: "the change deletes a copy", base: equalBase,
			head: map[string]string{"grader/gates.py": checktest.Deleted},
			want: checks.Failure, wantText: []string{"failure grader/gates.py:0 ", "At the base it was there."}},
		{name: "the change renames the list", base: equalBase,
			head: map[string]string{"grader/gates.py": strings.Replace(gatesPy(bench, asv), "PATTERNS", "PROTECTED", 1)},
			want: checks.Failure, wantText: []string{"grader/gates.py has no module-level assignment to PATTERNS"}},
		{name: "the template stops rendering", base: equalBase,
			head: map[string]string{"tpl/test.sh": testSh(bench, asv) + "{{ nope }}\n"},
			want: checks.Failure, wantText: []string{"tpl/test.sh does not render"}},
		{name: "the change touches no copy", base: equalBase,
			head: map[string]string{"README.md": "x\n"},
			want: checks.Skipped, wantNoFindings: true},
		{name: "the head's config cannot excuse its own difference", base: equalBase,
			headCfg: strings.Replace(syncConfig, `only_here: ["(^|/)tests?/"]`, `only_here: ["(^|/)tests?/", "(^|/)\\.github/"]`, 1),
			head:    map[string]string{"tpl/test.sh": testSh(bench, asv, gh)},
			want:    checks.Failure, wantText: []string{"grader/gates.py lacks 1 item"}},
		{name: "a symbolic link copy is not followed", base: equalBase,
			head: map[string]string{"grader/gates.py": "\x00link"},
			want: checks.Failure, wantText: []string{"is a symbolic link"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.baseCfg == "" {
				tt.baseCfg = syncConfig
			}
			if tt.headCfg == "" {
				tt.headCfg = tt.baseCfg
			}
			head := map[string]string{}
			link := false
			for p, v := range tt.head {
				if v == "\x00link" {
					link = true
					continue
				}
				head[p] = v
			}
			in := inputLink(t, tt.baseCfg, tt.headCfg, tt.base, head, link)
			res := New().Run(context.Background(), in)
			text := findingsText(res)
			if res.Conclusion != tt.want {
				t.Errorf("conclusion %s (%s), want %s\n%s", res.Conclusion, res.Title, tt.want, text)
			}
			if tt.wantNoFindings && len(res.Findings) > 0 {
				t.Errorf("findings, want none:\n%s", text)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("findings lack %q:\n%s", w, text)
				}
			}
		})
	}
}

// inputLink is input; with link, the head replaces grader/gates.py by a
// symbolic link to a file with the same list.
func inputLink(t *testing.T, baseCfg, headCfg string, base, head map[string]string, link bool) *checks.Input {
	t.Helper()
	if !link {
		return input(t, baseCfg, headCfg, base, head)
	}
	r := checktest.Repo(t, checktest.WithConfig(base, baseCfg), map[string]string{"grader/real.py": base["grader/gates.py"], "grader/gates.py": checktest.Link("real.py")})
	cfg := checktest.Config(t, baseCfg)
	return checktest.Input(t, r.Repo, checktest.Base, checktest.Head, cfg, cfg)
}

func TestDefaultSyncIsDatasmiths(t *testing.T) {
	t.Parallel()
	s := config.Default().Sync
	if s == nil || len(s.Groups) != 1 || len(s.Groups[0].Copies) != 2 {
		t.Fatalf("default sync = %+v", s)
	}
	cp := s.Groups[0].Copies
	if cp[0].Path != "harbor:tests/test.sh" || cp[0].Bash != "_fc_restore_patterns" || cp[1].Path != "fcrl/grading/gates.py" || cp[1].Python != "PROTECTED_PATCH_PATTERNS" {
		t.Errorf("copies = %+v", cp)
	}
}
