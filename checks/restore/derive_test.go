package restore

import (
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadStepPolicy(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string // Go patterns
		err    string   // part of the error, when it fails
	}{{
		name: "array of -e words spliced into grep",
		script: `pats=(
  -e '(^|/)benchmarks?/'
  -e '(^|/)conftest\.py$'
)
list() { { git diff --name-only -z "$1"; git ls-files -z --others; } | { grep -zE "${pats[@]}" || [ "$?" = 1 ]; } | sort -zu; }
`,
		want: []string{`(^|/)benchmarks?/`, `(^|/)conftest\.py$`},
	}, {
		name:   "inline -e words and a plain array appended to",
		script: "a=(-e '(^|/)tests?/')\na+=(-e '(^|/)[^/]*_test\\.py$')\ngit status --porcelain | grep -E -e 'x/' \"${a[@]}\"\n",
		want:   []string{`x/`, `(^|/)tests?/`, `(^|/)[^/]*_test\.py$`},
	}, {
		name: "patterns in a file the step writes with printf",
		script: `tmp=$(mktemp)
printf '%s\n' '^docs/' '(^|/)\.github/' > "$tmp"
git diff --name-only HEAD | grep -Ef "$tmp"
`,
		want: []string{`^docs/`, `(^|/)\.github/`},
	}, {
		name: "patterns in a here-document, read through a process substitution",
		script: `cat > /tmp/pats <<'END'
^bench/
^a b/
END
while read -r p; do echo "$p"; done < <(grep -E -f /tmp/pats < <(git ls-files -m))
`,
		want: []string{`^bench/`, `^a b/`},
	}, {
		name:   "the first operand is the pattern",
		script: "git diff --name-only base | grep -E '^(tests|benchmarks)/'\n",
		want:   []string{`^(tests|benchmarks)/`},
	}, {
		name:   "basic regular expression",
		script: "git diff --name-only b | grep -e '\\(^\\|/\\)tests\\?/' -e 'a+b' -e '*x'\n",
		want:   []string{`(^|/)tests?/`, `a\+b`, `\*x`},
	}, {
		name:   "fixed strings, ignore case, whole line",
		script: "git ls-files | grep -Fix 'asv.conf.json'\n",
		want:   []string{`(?i)^(?:asv\.conf\.json)$`},
	}, {
		name:   "backslash in a bracket is a plain character",
		script: "git ls-files | grep -E '[\\]x]y'\n",
		want:   []string{`[\\]x]y`},
	}, {
		name:   "a grep of something else is not the policy",
		script: "grep -q error log.txt\ngit diff --name-only b | grep -E '^t/'\n",
		want:   []string{`^t/`},
	}, {
		// datasmith 1e2909a: a command whose words expand to nothing,
		// with a redirect (it crashed the reader).
		name:   "a redirect of a command that expands to nothing",
		script: "cmd=''\n$cmd > /tmp/out\n\"${FC_REBUILD_CMD:-}\" >> /tmp/log\ngit ls-files | grep -E '^a/'\n",
		want:   []string{`^a/`},
	}, {
		// datasmith-mini's bad-restore-aborts counts the changed paths:
		// a count, a test or a file list is no filter of paths.
		name:   "greps that count or test are not the policy",
		script: "n=$(git status --porcelain | grep -c .)\ngit diff --name-only b | grep -q x && echo y\ngit ls-files | grep --files-with-matches z\ngit ls-files | grep -E '^t/'\n",
		want:   []string{`^t/`},
	}, {
		name:   "no grep over git output",
		script: "grep -q error log.txt\nfor p in $(git diff --name-only b); do case $p in t/*) echo $p;; esac; done\n",
		err:    errNoPatternList.Error(),
	}, {
		name:   "an inverted grep",
		script: "git ls-files | grep -v -E '^src/'\n",
		err:    "-v keeps the paths",
	}, {
		name:   "a pattern file the step does not write",
		script: "git ls-files | grep -E -f /etc/patterns\n",
		err:    "which the step does not write",
	}, {
		name:   "a pattern Go cannot read",
		script: "git ls-files | grep -E '(a)\\1'\n",
		err:    "pattern",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadStepPolicy(tt.script)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one that says %q (policy %q)", err, tt.err, got.Patterns)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Patterns); diff != "" {
				t.Errorf("patterns (-want +got):\n%s", diff)
			}
			for _, p := range got.Patterns {
				regexp.MustCompile(p)
			}
		})
	}
}

// The patterns read from a step match the paths that GNU grep matches:
// each command runs with the real grep, so a conversion error shows.
func TestReadStepPolicyAgreesWithGrep(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("no grep")
	}
	paths := []string{"tests/a.py", "src/tests/b.py", "mytests/c.py", "a+b", "aab", "*x", "x", "ASV.conf.json", "asv.conf.json",
		"]y", "xy", `\y`, "sub/conftest.py", "conftest.pyc", "benchmark/x", "docs/benchmarks.md"}
	greps := []string{
		`grep -e '\(^\|/\)tests\?/' -e 'a+b' -e '*x'`,
		`grep -E -e '(^|/)tests?/' -e 'a\+b' -e '[\]x]y'`,
		`grep -Fix 'asv.conf.json'`,
		`grep -E -e '(^|/)conftest\.py$' -e '(^|/)benchmarks?/'`,
	}
	for _, g := range greps {
		sp, err := ReadStepPolicy("git ls-files | " + g + "\n")
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		p, err := NewPolicy(sp.Patterns)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			cmd := exec.Command("bash", "-c", g)
			cmd.Stdin = strings.NewReader(path + "\n")
			out, _ := cmd.Output()
			want := strings.TrimSpace(string(out)) == path
			if p.Protects(path) != want {
				t.Errorf("%s: %q: the policy says %v, grep says %v (patterns %q)", g, path, p.Protects(path), want, sp.Patterns)
			}
		}
	}
}

func TestReadStepPolicyParseError(t *testing.T) {
	_, err := ReadStepPolicy("if then fi (\n")
	if err == nil || errors.Is(err, errNoPatternList) {
		t.Fatalf("error %v, want a parse error", err)
	}
}
