package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

// invoke runs the command line in-process and returns exit code and output.
func invoke(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

const tinyConfig = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {name: world}
    matrix: {flag: [true, false]}
    templates:
      - path: "**"
restore: null
pytest: null
`

// tinyRepo has one template at base; each test adds its own head commit.
func tinyRepo(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	r.Write(map[string]string{
		".github/template-verify.yml": tinyConfig,
		"tpl/run.sh":                  "#!/usr/bin/env bash\necho hello {{ name }}\n",
		"README.md":                   "tiny\n",
	})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	return r
}

func TestRunExitCodesAndMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		head     map[string]string // files written on the pr branch
		args     []string          // extra args after --repo DIR
		wantCode int
		wantOut  []string // substrings of stdout
		wantErr  []string // substrings of stderr
		notErr   []string // what stderr must not show
	}{
		{
			name:     "passing change",
			head:     map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho hi {{ name }}\n"},
			wantCode: exitPass,
			wantOut:  []string{"## Verification", "tpl/run.sh"},
		},
		{
			name:     "no template changed",
			head:     map[string]string{"README.md": "changed\n"},
			wantCode: exitPass,
			wantOut:  []string{"nothing to verify"},
		},
		{
			name:     "template syntax error",
			head:     map[string]string{"tpl/run.sh": "echo\n{% if name %}\necho x\n"},
			wantCode: exitFail,
			wantOut:  []string{"tpl/run.sh"},
		},
		{
			name:     "undefined variable under StrictUndefined",
			head:     map[string]string{"tpl/run.sh": "echo {{ name }}\necho {{ missing_var }}\n"},
			wantCode: exitFail,
			wantOut:  []string{"tpl/run.sh:2", "missing_var"},
		},
		{
			name:     "bash syntax error in one branch",
			head:     map[string]string{"tpl/run.sh": "echo ok\n{% if flag %}\nif true; then\n  echo x\n{% endif %}\n"},
			wantCode: exitFail,
			wantOut:  []string{"bash -n", "flag=true", "tpl/run.sh:3"},
		},
		{
			name:     "file that is not UTF-8",
			head:     map[string]string{"tpl/run.sh": "echo \xff\xfe\n"},
			wantCode: exitFail,
			wantOut:  []string{"tpl/run.sh:1", "not valid UTF-8"},
		},
		{
			name:     "config with an unknown key",
			head:     map[string]string{".github/template-verify.yml": tinyConfig + "colour: blue\n"},
			wantCode: exitUsage,
			wantErr:  []string{".github/template-verify.yml:12", "colour"},
		},
		{
			name:     "config with a wrong type",
			head:     map[string]string{".github/template-verify.yml": strings.Replace(tinyConfig, "version: 1", "version: [1]", 1)},
			wantCode: exitUsage,
			wantErr:  []string{".github/template-verify.yml:1"},
		},
		{
			name:     "unknown revision",
			head:     map[string]string{"README.md": "x\n"},
			args:     []string{"--base", "no-such-branch"},
			wantCode: exitUsage,
			wantErr:  []string{`unknown revision "no-such-branch"`, "fetch the commit first (git fetch origin NAME)"},
			notErr:   []string{"rev-parse", "exit status"},
		},
		{
			name:     "a revision near a branch",
			head:     map[string]string{"README.md": "x\n"},
			args:     []string{"--base", "mian"},
			wantCode: exitUsage,
			wantErr:  []string{`base: unknown revision "mian": no branch, tag or commit of that name in the repository (did you mean "main"?)`},
			notErr:   []string{"rev-parse"},
		},
		{
			name:     "unknown check in --only",
			head:     map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho hi {{ name }}\n"},
			args:     []string{"--only", "render,lint"},
			wantCode: exitUsage,
			wantErr:  []string{`unknown check "lint"`},
		},
		{
			name:     "unknown format",
			head:     map[string]string{"README.md": "x\n"},
			args:     []string{"--format", "yaml"},
			wantCode: exitUsage,
			wantErr:  []string{`unknown format "yaml"`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tinyRepo(t)
			r.Write(tc.head)
			r.Commit("head")
			args := append([]string{"run", "--repo", r.Dir(), "--base", "main", "--head", "pr"}, tc.args...)
			code, out, errOut := invoke(t, args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			for _, s := range tc.wantOut {
				if !strings.Contains(out, s) {
					t.Errorf("stdout misses %q:\n%s", s, out)
				}
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr misses %q:\n%s", s, errOut)
				}
			}
			for _, s := range tc.notErr {
				if strings.Contains(errOut, s) {
					t.Errorf("stderr has %q:\n%s", s, errOut)
				}
			}
		})
	}
}

func TestRunNotARepository(t *testing.T) {
	t.Parallel()
	code, _, errOut := invoke(t, "run", "--repo", t.TempDir(), "--base", "main")
	if code != exitUsage || !strings.Contains(errOut, "is not a git repository") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"nope"}, {"run"}, {"run", "--base", "x", "extra"}, {"demo", "--bad", "--head", "good"}, {"demo", "--head", "nope"}} {
		if code, _, _ := invoke(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	r := tinyRepo(t)
	r.Write(map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho hi {{ name }}\n"})
	r.Commit("head")
	for format, want := range map[string]string{"json": `"overall": "success"`, "text": "render", "markdown": "## Verification"} {
		code, out, errOut := invoke(t, "run", "--repo", r.Dir(), "--base", "main", "--head", "pr", "--format", format)
		if code != exitPass || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, output misses %q:\n%s\n%s", format, code, want, out, errOut)
		}
	}
}

func TestRunConfigFlag(t *testing.T) {
	t.Parallel()
	r := tinyRepo(t)
	// The tree has no other config: with --config the tool reads this one,
	// whose unknown key must stop the run with its path and line.
	r.Write(map[string]string{"ci/tv.yml": "version: 1\nbogus: true\n", "tpl/run.sh": "echo {{ name }} 2\n"})
	r.Commit("head")
	code, _, errOut := invoke(t, "run", "--repo", r.Dir(), "--base", "main", "--head", "pr", "--config", "ci/tv.yml")
	if code != exitUsage || !strings.Contains(errOut, "ci/tv.yml:2") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
