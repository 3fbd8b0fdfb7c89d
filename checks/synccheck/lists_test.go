package synccheck

import (
	"fmt"
	"strings"
	"testing"
)

// listsText is "Kind Name @Line: item@line item@line" per list.
func listsText(lists []List) string {
	var b strings.Builder
	for _, l := range lists {
		fmt.Fprintf(&b, "%s %s @%d:", l.Kind, l.Name, l.Line)
		for _, it := range l.Items {
			fmt.Fprintf(&b, " %s@%d", it.Value, it.Line)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestListsOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, src string
		template        bool
		want            string // listsText
		wantErr         string
	}{
		{name: "bash array with -e words", path: "t/test.sh",
			src:  "#!/bin/bash\npats=(\n  -e 'a/'\n  -e \"b\\$\"\n  -e c\n)\nshort=(x y)\n",
			want: "bash array pats @2: a/@3 b$@4 c@5\n"},
		{name: "bash declare and plain words", path: "run",
			src:  "#!/usr/bin/env bash\ndeclare -a dirs=(src tests benchmarks)\n",
			want: "bash array dirs @2: src@2 tests@2 benchmarks@2\n"},
		{name: "bash grep -e words and -f files", path: "x.bash",
			src:  "git diff --name-only | grep -E -e '^a' -e '^b' --regexp='^c' -f one -f two\n",
			want: "grep -e words  @1: ^a@1 ^b@1 ^c@1\n"},
		{name: "bash associative array is not a list", path: "x.sh",
			src: "declare -A m=([a]=1 [b]=2 [c]=3)\n", want: ""},
		{name: "bash template with Jinja tags", path: "tpl/test.sh", template: true,
			src:  "#!/bin/bash\n{% if run_pytest %}\necho {{ owner }}\n{% endif %}\npats=(\n  'x'\n  'y'\n  'z'\n)\nother=( '{{ a }}' b c )\n",
			want: "bash array pats @5: x@6 y@7 z@8\n"},
		{name: "bash that does not parse", path: "x.sh", src: "if then fi (\n", wantErr: "x.sh: bash:"},
		{name: "python list, tuple, frozenset and keyword", path: "g.py",
			src: "import re\nPATTERNS = [\n    r\"\\.github/\",  # c\n    'a' 'b',\n    \"c\",\n]\nT: tuple[str, ...] = ('x', 'y', 'z')\nS = frozenset({'p', 'q', 'r'})\n" +
				"f(names=['m', 'n', 'o'])\nD = {'k': ['u', 'v', 'w']}\nprint('no', 'call', 'args')\nx = y[('i', 'j', 'k')]\nN = [1, 2, 3]\nF = [f'a', 'b', 'c']\n",
			want: "Python list PATTERNS @2: \\.github/@3 ab@4 c@5\nPython tuple T @7: x@7 y@7 z@7\nPython set S @8: p@8 q@8 r@8\nPython list names @9: m@9 n@9 o@9\nPython list k @10: u@10 v@10 w@10\n"},
		{name: "python display on a line of its own keeps its name", path: "g.py",
			src:  "P: frozenset[str] = frozenset(\n    {\n        'a',\n        'b',\n        'c',\n    }\n)\nQ = [\n  'x', 'y', 'z']\nprint(1)\n['u', 'v', 'w']\n",
			want: "Python set P @2: a@3 b@4 c@5\nPython list Q @8: x@9 y@9 z@9\n"},
		{name: "python call arguments and x in (...) are anonymous: left out", path: "g.py",
			src: "run(['git', 'rev-parse', '--show-toplevel'])\nif w in ('setup', 'call', 'teardown'):\n    pass\n", want: ""},
		{name: "python string with brackets is skipped", path: "g.py",
			src:  "s = \"['a', 'b', 'c']\"\nL = ['d', 'e', 'f']\n",
			want: "Python list L @2: d@2 e@2 f@2\n"},
		{name: "yaml block and flow lists", path: "ci/protected.yml",
			src:  "restore:\n  patterns:\n    - '(^|/)bench/'\n    - \"x\"\n    - y\n  n: [1, 2, 3]\nflow: [a, b, c]\n",
			want: "YAML list restore.patterns @3: (^|/)bench/@3 x@4 y@5\nYAML list flow @7: a@7 b@7 c@7\n"},
		{name: "yaml list at the end of the file", path: "p.yaml",
			src:  "# header\nname: x\n\npatterns:\n- a\n- b\n- c",
			want: "YAML list patterns @5: a@5 b@6 c@7\n"},
		{name: "yaml list of mappings", path: "w.yml",
			src:  "jobs:\n  - paths: [p, q, r]\n  - paths: [s, t, u]\n",
			want: "YAML list jobs[0].paths @2: p@2 q@2 r@2\nYAML list jobs[1].paths @3: s@3 t@3 u@3\n"},
		{name: "yaml template with Jinja tags", path: "tpl/c.yml.j2",
			src:  "name: {{ name }}\n{% if x %}\nitems:\n  - a\n  - b\n  - c\n{% endif %}\n",
			want: "YAML list items @4: a@4 b@5 c@6\n"},
		{name: "yaml that does not parse", path: "b.yml", src: "a: [\n", wantErr: "b.yml: yaml:"},
		{name: "json", path: "p.json",
			src:  "{\n  \"a\": {\"patterns\": [\n    \"(^|/)\\\\.github/\",\n    \"b\",\n    \"c\"\n  ]},\n  \"mixed\": [\"a\", 1, \"b\", \"c\"],\n  \"nested\": [[\"x\", \"y\", \"z\"]]\n}\n",
			want: "JSON list a.patterns @2: (^|/)\\.github/@3 b@4 c@5\nJSON list nested[0] @8: x@8 y@8 z@8\n"},
		{name: "json top-level array", path: "l.json", src: "[\"a\",\"b\",\"c\"]", want: "JSON list  @1: a@1 b@1 c@1\n"},
		{name: "json that does not parse", path: "b.json", src: "{\"a\": [1,}", wantErr: "b.json: json:"},
		{name: "toml", path: "pyproject.toml",
			src:  "[tool.x]\npatterns = [\n  '(^|/)bench/',\n  \"b\",\n  \"\"\"c\"\"\",\n]\nnums = [1, 2, 3]\n[[job]]\nsteps = [\"s\", \"t\", \"u\"]\n[[job]]\ninline = {paths = [\"p\", \"q\", \"r\"]}\n",
			want: "TOML array tool.x.patterns @2: (^|/)bench/@3 b@4 c@5\nTOML array job[0].steps @9: s@9 t@9 u@9\nTOML array job[1].inline.paths @11: p@11 q@11 r@11\n"},
		{name: "toml with a key defined twice", path: "d.toml", src: "a = 1\na = 2\n", wantErr: "d.toml: toml:"},
		{name: "a README's bullets outside markers are no list", path: "README.md", src: "- a\n- b\n- c\n", want: ""},
		{name: "unknown format", path: "notes.html", src: "<li>a</li>\n<li>b</li>\n<li>c</li>\n", want: ""},
		{name: "bash case arms", path: "restore.sh",
			src:  "case \"$f\" in\n  tests/*|*.test.py|conftest.py) keep ;;\n  'a b'|\"c\"|d\\*e)\n    x ;;\n  *) ;;\nesac\n",
			want: "case globs \"$f\" @2: tests/*@2 *.test.py@2 conftest.py@2\ncase globs \"$f\" @3: a b@3 c@3 d*e@3\n"},
		{name: "a plain list file", path: "ci/protected.txt",
			src:  "# paths the grader restores\n\ntests/\n  benchmarks/  \n\"asv.conf.json\"\n",
			want: "lines  @1: tests/@3 benchmarks/@4 asv.conf.json@5\n"},
		{name: "lines between markers in a README and in a script", path: "README.md",
			src:  "# Grader\n<!-- BEGIN protected paths -->\n- `tests/`\n- `benchmarks/`\n- `asv.conf.json`\n<!-- END protected paths -->\nStart here.\n",
			want: "lines between markers protected paths @2: tests/@3 benchmarks/@4 asv.conf.json@5\n"},
		{name: "markers in a shell comment, beside the script's own lists", path: "x.sh",
			src:  "# >>> start: keep\n# tests/\n# benchmarks/\n# asv.conf.json\n# <<< end\necho hi\n",
			want: "lines between markers keep @1: tests/@2 benchmarks/@3 asv.conf.json@4\n"},
		{name: "a begin marker without an end is no list", path: "y.md",
			src: "<!-- begin x -->\n- a\n- b\n- c\n", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lists, err := ListsOf(tt.path, []byte(tt.src), tt.template)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := listsText(lists); got != tt.want {
				t.Errorf("lists:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestCaseArmsBounded: a case statement of thousands of arms gives at
// most maxListsPerFile lists, and a begin marker of many lines no more
// than maxItems items.
func TestCaseArmsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("case \"$f\" in\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "  a%d|b%d|c%d) x ;;\n", i, i, i)
	}
	b.WriteString("esac\n# BEGIN many\n" + strings.Repeat("# item\n", maxItems+1) + "# END many\n")
	lists, err := ListsOf("big.sh", []byte(b.String()), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(lists) != maxListsPerFile {
		t.Errorf("%d lists, want %d", len(lists), maxListsPerFile)
	}
	for _, l := range lists {
		if len(l.Items) > maxItems {
			t.Errorf("%s: %d items, more than %d", l.label(), len(l.Items), maxItems)
		}
	}
}
