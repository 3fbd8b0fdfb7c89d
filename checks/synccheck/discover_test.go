package synccheck

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
)

// noSyncCfg has a template group under tpl/ and no sync block: discovery
// is on, and datasmith's default group does not apply.
const noSyncCfg = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {keep_trailing_newline: true}
    templates:
      - path: "**"
`

// runSh is a template whose bash array protect holds pats, under a name
// the defaults do not know.
func runSh(pats ...string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n# task {{ task_id }}\nprotect=(\n")
	for _, p := range pats {
		b.WriteString("  '" + p + "'\n")
	}
	b.WriteString(")\nfor p in \"${protect[@]}\"; do echo \"$p\"; done\n")
	return b.String()
}

// protectedYML keeps the copy as a YAML list at the end of the file (no
// line after it, the shape that stopped the between extractor).
func protectedYML(pats ...string) string {
	var b strings.Builder
	b.WriteString("# The grader's copy of protect in tpl/run.sh.\nversion: 2\n\npaths:\n")
	for _, p := range pats {
		b.WriteString("  - '" + p + "'\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func pyTuple(name string, pats ...string) string {
	return name + " = (\n    \"" + strings.Join(pats, "\",\n    \"") + "\",\n)\n"
}

const (
	pa = `(^|/)benchmarks?/`
	pb = `(^|/)asv\.conf`
	pc = `(^|/)\.github/`
	pd = `(^|/)conftest\.py$`
)

// TestDiscoveredGroups runs the check on repositories without a sync block:
// the copies are found because they were equal at the base.
func TestDiscoveredGroups(t *testing.T) {
	t.Parallel()
	base := map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/protected.yml": protectedYML(pa, pb, pc)}
	tests := []struct {
		name             string
		baseCfg, headCfg string // noSyncCfg when empty
		base, head       map[string]string
		want             checks.Conclusion
		text             []string // in the findings and notes
		clean            bool     // no finding
	}{
		{name: "a drifted copy under other names fails, naming both files and lines", base: base,
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)},
			want: checks.Failure,
			text: []string{"failure tpl/run.sh:3 tpl/run.sh:3 (bash array protect) and ci/protected.yml:5 (YAML list paths) were equal at the base (in the same order). This change makes them differ.",
				"ci/protected.yml lacks:\n  (^|/)conftest\\.py$    (tpl/run.sh:7)"}},
		{name: "the YAML copy changed the same way passes", base: base,
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd), "ci/protected.yml": protectedYML(pa, pb, pc, pd)},
			want: checks.Success, clean: true},
		{name: "an item dropped from the plain copy fails, naming the template's line", base: base,
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pc) + "# touched\n", "ci/protected.yml": protectedYML(pa, pc)},
			want: checks.Failure,
			text: []string{"failure tpl/run.sh:3 ", "ci/protected.yml lacks:\n  (^|/)asv\\.conf    (tpl/run.sh:5)"}},
		{name: "a changed plain copy alone fails against the unchanged template", base: base,
			head: map[string]string{"ci/protected.yml": protectedYML(pa, pb)},
			want: checks.Failure,
			text: []string{"failure ci/protected.yml:5 ", "ci/protected.yml lacks:\n  (^|/)\\.github/    (tpl/run.sh:6)"}},
		{name: "a reordered set passes when the base equality was as a set",
			base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "grader/gates.py": "P = frozenset({\"" + pc + "\", \"" + pa + "\", \"" + pb + "\"})\n"},
			head: map[string]string{"tpl/run.sh": runSh(pb, pc, pa)},
			want: checks.Success, clean: true},
		{name: "a reordered sequence fails when the base equality was in order",
			base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "grader/gates.py": pyTuple("P", pa, pb, pc)},
			head: map[string]string{"tpl/run.sh": runSh(pb, pa, pc)},
			want: checks.Failure,
			text: []string{"(in the same order)", "The order differs at item 1: tpl/run.sh:4 has (^|/)asv\\.conf, grader/gates.py:2 has (^|/)benchmarks?/."}},
		{name: "a list that matches only at the head forms no group",
			base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/protected.yml": protectedYML(pa, pb, pd)},
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pd)},
			want: checks.Skipped, clean: true},
		{name: "a list that differed at the base is not the change's fault",
			base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/protected.yml": protectedYML(pa, pb, pd)},
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)},
			want: checks.Skipped, clean: true},
		{name: "a JSON and a TOML copy", base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc),
			"ci/p.json":      fmt.Sprintf("{\"paths\": [%q, %q, %q]}\n", pa, pb, pc),
			"pyproject.toml": fmt.Sprintf("[tool.grader]\npaths = [\n  '%s',\n  '%s',\n  '%s',\n]\n", pa, pb, pc)},
			head: map[string]string{"tpl/run.sh": runSh(pa, pb)},
			want: checks.Failure,
			text: []string{"ci/p.json:1 (JSON list paths) were equal", "pyproject.toml:2 (TOML array tool.grader.paths) were equal",
				"tpl/run.sh lacks:\n  (^|/)\\.github/    (pyproject.toml:5)"}},
		{name: "a grep -e copy in another template", base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc),
			"tpl/check.sh": "git diff --name-only | grep -E -e '" + pa + "' -e '" + pb + "' -e '" + pc + "'\n"},
			head: map[string]string{"tpl/check.sh": "git diff --name-only | grep -E -e '" + pa + "' -e '" + pb + "'\n"},
			want: checks.Failure, text: []string{"tpl/check.sh:1 (grep -e words) and tpl/run.sh:3 (bash array protect)"}},
		{name: "two plain files, a data file and a Python constant, drift apart",
			base: map[string]string{"tpl/run.sh": runSh("x", "y", "z"), "data/protected.txt": "tests/\nbenchmarks/\nasv.conf.json\n",
				"grader/gates.py": "PROTECTED = frozenset({\"asv.conf.json\", \"tests/\", \"benchmarks/\"})\n"},
			head: map[string]string{"data/protected.txt": "tests/\nbenchmarks/\nasv.conf.json\nconftest.py\n"},
			want: checks.Failure,
			text: []string{"data/protected.txt:1 (lines) and grader/gates.py:1 (Python set PROTECTED) were equal at the base (as sets). This change makes them differ.",
				"grader/gates.py lacks:\n  conftest.py    (data/protected.txt:4)"}},
		{name: "a case statement's globs and a YAML list, neither a template",
			base: map[string]string{"tpl/run.sh": runSh("x", "y", "z"),
				"grader/restore.sh": "#!/bin/bash\nwhile read -r f; do\n  case \"$f\" in\n    tests/*|benchmarks/*|asv.conf.json) git checkout -- \"$f\" ;;\n  esac\ndone\n",
				"ci/protected.yml":  protectedYML("tests/*", "benchmarks/*", "asv.conf.json")},
			head: map[string]string{"grader/restore.sh": "#!/bin/bash\nwhile read -r f; do\n  case \"$f\" in\n    tests/*|asv.conf.json) git checkout -- \"$f\" ;;\n  esac\ndone\n"},
			want: checks.Failure,
			text: []string{"grader/restore.sh:4 (case globs \"$f\")", "ci/protected.yml:5 (YAML list paths)", "grader/restore.sh lacks:\n  benchmarks/*"}},
		{name: "lines between markers in a README and a bash array",
			base: map[string]string{"tpl/run.sh": runSh(pa, pb, pc),
				"README.md": "# Grader\n<!-- BEGIN protected -->\n- `" + pa + "`\n- `" + pb + "`\n- `" + pc + "`\n<!-- END protected -->\n"},
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)},
			want: checks.Failure,
			text: []string{"README.md:2 (lines between markers protected)", "README.md lacks:\n  (^|/)conftest\\.py$"}},
		{name: "two plain files changed the same way pass",
			base: map[string]string{"tpl/run.sh": runSh("x", "y", "z"), "data/protected.txt": "tests/\nbenchmarks/\nasv.conf.json\n",
				"grader/gates.py": "PROTECTED = [\"tests/\", \"benchmarks/\", \"asv.conf.json\"]\n"},
			head: map[string]string{"data/protected.txt": "tests/\nbenchmarks/\nasv.conf.json\nconftest.py\n",
				"grader/gates.py": "PROTECTED = [\"tests/\", \"benchmarks/\", \"asv.conf.json\", \"conftest.py\"]\n"},
			want: checks.Success, clean: true},
		{name: "a plain list rewritten as a frozenset in another order is the same copy",
			base: map[string]string{"tpl/run.sh": runSh("x", "y", "z"), "grader/gates.py": "P = [\n    \"" + pa + "\",\n    \"" + pb + "\",\n    \"" + pc + "\",\n]\n", "ci/protected.yml": protectedYML(pa, pb, pc)},
			head: map[string]string{"grader/gates.py": "P: frozenset[str] = frozenset(\n    {\n        \"" + pc + "\",\n        \"" + pa + "\",\n        \"" + pb + "\",\n    }\n)\n"},
			want: checks.Success, clean: true},
		{name: "a plain list rewritten as a frozenset that lacks an item fails",
			base: map[string]string{"tpl/run.sh": runSh("x", "y", "z"), "grader/gates.py": "P = [\n    \"" + pa + "\",\n    \"" + pb + "\",\n    \"" + pc + "\",\n]\n", "ci/protected.yml": protectedYML(pa, pb, pc)},
			head: map[string]string{"grader/gates.py": "P: frozenset[str] = frozenset(\n    {\n        \"" + pc + "\",\n        \"" + pa + "\",\n    }\n)\n"},
			want: checks.Failure, text: []string{"grader/gates.py:2 (Python set P) and ci/protected.yml:5 (YAML list paths)", "grader/gates.py lacks:"}},
		{name: "the copy's file deleted is a notice", base: base,
			head: map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd), "ci/protected.yml": checktest.Deleted},
			want: checks.Success, text: []string{"notice tpl/run.sh:3 ", "ci/protected.yml is deleted, so no second copy is left"}},
		{name: "the copy that no longer parses fails", base: base,
			head: map[string]string{"ci/protected.yml": "paths: [\n"},
			want: checks.Failure, text: []string{"ci/protected.yml cannot be read at the head: yaml:"}},
		{name: "sync.ignore of the base silences the group", base: base,
			baseCfg: noSyncCfg + "sync:\n  ignore:\n    - {path: ci/*.yml, list: paths}\n",
			head:    map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)},
			want:    checks.Skipped, clean: true,
			text: []string{"Not compared, because sync.ignore of .github/template-verify.yml names them: tpl/run.sh:3 (bash array protect) = ci/protected.yml:5 (YAML list paths)."}},
		{name: "sync.ignore of the head does not excuse the change", base: base,
			headCfg: noSyncCfg + "sync:\n  ignore:\n    - {path: ci/*.yml}\n",
			head:    map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)},
			want:    checks.Failure},
		{name: "discover: false turns discovery off", base: base,
			baseCfg: noSyncCfg + "sync:\n  discover: false\n",
			head:    map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)},
			want:    checks.Skipped, clean: true},
		{name: "a named group leaves its copies to itself", base: base,
			baseCfg: noSyncCfg + "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: tpl/run.sh, bash: protect, only_here: ['" + pd + "']}\n        - {path: ci/protected.yml, yaml: paths}\n",
			head:    map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd) + "# {{ task_id }}\n"},
			want:    checks.Success},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.baseCfg == "" {
				tt.baseCfg = noSyncCfg
			}
			if tt.headCfg == "" {
				tt.headCfg = tt.baseCfg
			}
			in := input(t, tt.baseCfg, tt.headCfg, tt.base, tt.head)
			res := New().Run(context.Background(), in)
			text := findingsText(res) + strings.Join(res.Notes, "\n")
			if res.Conclusion != tt.want {
				t.Errorf("conclusion %s (%s), want %s\n%s", res.Conclusion, res.Title, tt.want, text)
			}
			if tt.clean && len(res.Findings) > 0 {
				t.Errorf("findings, want none:\n%s", text)
			}
			for _, w := range tt.text {
				if !strings.Contains(text, w) {
					t.Errorf("findings and notes lack %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestYAMLCopyNamed reads a YAML copy with the yaml extractor, and with
// between, whose section now runs to the end of the file: before, between
// stopped at "no line after line 4 matches the end marker" and every good
// pull request was not run (exit 3).
func TestYAMLCopyNamed(t *testing.T) {
	t.Parallel()
	named := func(extractor string) string {
		return noSyncCfg + "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: tpl/run.sh, bash: protect}\n        - {path: ci/protected.yml, " + extractor + "}\n"
	}
	base := map[string]string{"tpl/run.sh": runSh(pa, pb), "ci/protected.yml": protectedYML(pa, pb)}
	for _, tc := range []struct {
		extractor string
		head      map[string]string
		want      checks.Conclusion
	}{
		{"yaml: paths", map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/protected.yml": protectedYML(pa, pb, pc)}, checks.Success},
		{"yaml: paths", map[string]string{"tpl/run.sh": runSh(pa, pb, pc)}, checks.Failure},
		// between reads the raw lines ("- '...'"), which differ from the
		// array's items at the base too: a warning, not "not run".
		{"between: {start: '^paths:', end: '^\\S'}", map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/protected.yml": protectedYML(pa, pb, pc)}, checks.Success},
	} {
		t.Run(tc.extractor, func(t *testing.T) {
			t.Parallel()
			in := input(t, named(tc.extractor), named(tc.extractor), base, tc.head)
			res := New().Run(context.Background(), in)
			if res.Conclusion != tc.want {
				t.Errorf("conclusion %s (%s), want %s\n%s%s", res.Conclusion, res.Title, tc.want, findingsText(res), strings.Join(res.Notes, "\n"))
			}
		})
	}
}

// TestHasWorkForAPlainCopy: a change to a plain file only (no template)
// runs the check when the file holds a copy of a template's list.
func TestHasWorkForAPlainCopy(t *testing.T) {
	t.Parallel()
	base := map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/protected.yml": protectedYML(pa, pb, pc), "ci/other.yml": protectedYML("x", "y", "z")}
	for _, tc := range []struct {
		file string
		want bool
	}{{"ci/protected.yml", true}, {"ci/other.yml", false}} {
		in := input(t, noSyncCfg, noSyncCfg, base, map[string]string{tc.file: protectedYML(pa)})
		if got := New().HasWork(in.Plan, in.BaseConfig, in.Config); got != tc.want {
			t.Errorf("%s: HasWork = %v, want %v", tc.file, got, tc.want)
		}
	}
	in := input(t, noSyncCfg+"sync:\n  discover: false\n", noSyncCfg+"sync:\n  discover: false\n", base, map[string]string{"ci/protected.yml": protectedYML(pa)})
	if New().HasWork(in.Plan, in.BaseConfig, in.Config) {
		t.Error("HasWork with discover: false")
	}
}

// TestDiscoveryBounds: a file past maxFileBytes is left out with a note,
// and a file of many lists gives at most maxListsPerFile.
func TestDiscoveryBounds(t *testing.T) {
	t.Parallel()
	huge := "# " + strings.Repeat("x", maxFileBytes) + "\npaths:\n  - '" + pa + "'\n  - '" + pb + "'\n  - '" + pc + "'\n"
	var mb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&mb, "L%d = (%q, %q, %q)\n", i, pa, pb, pc)
	}
	many := mb.String()
	base := map[string]string{"tpl/run.sh": runSh(pa, pb, pc), "ci/huge.yml": huge, "ci/many.py": many}
	in := input(t, noSyncCfg, noSyncCfg, base, map[string]string{"tpl/run.sh": runSh(pa, pb, pc, pd)})
	res := New().Run(context.Background(), in)
	text := findingsText(res) + strings.Join(res.Notes, "\n")
	if !strings.Contains(text, "Discovery left out 1 files of the base larger than 512 KiB.") {
		t.Errorf("no note of the large file:\n%s", text)
	}
	if strings.Contains(text, "ci/huge.yml") {
		t.Errorf("the large file was read:\n%s", text)
	}
	if n := strings.Count(text, "failure tpl/run.sh:3 "); n != maxFound {
		t.Errorf("%d failures, want the first %d groups (maxFound)", n, maxFound)
	}
	lists, err := ListsOf("ci/many.py", []byte(many), false)
	if err != nil || len(lists) != maxListsPerFile {
		t.Errorf("%d lists, %v; want %d", len(lists), err, maxListsPerFile)
	}
}

func TestSyncIgnoreMatches(t *testing.T) {
	t.Parallel()
	s := &config.Sync{Ignore: []config.SyncIgnore{{Path: "tpl/**", List: "protect", With: "ci/*.yml"}}}
	for _, tc := range []struct {
		a, aList, b, bList string
		want               bool
	}{
		{"tpl/x/run.sh", "protect", "ci/p.yml", "paths", true},
		{"ci/p.yml", "paths", "tpl/run.sh", "protect", true},
		{"tpl/run.sh", "other", "ci/p.yml", "paths", false},
		{"tpl/run.sh", "protect", "ci/p.json", "paths", false},
	} {
		if got := s.Ignored(tc.a, tc.aList, tc.b, tc.bList); got != tc.want {
			t.Errorf("Ignored(%s, %s, %s, %s) = %v", tc.a, tc.aList, tc.b, tc.bList, got)
		}
	}
}
