package names

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
)

const namesConfig = `version: 1
groups:
  - name: prompts
    root: prompts
    jinja: {trim_blocks: true, lstrip_blocks: true}
    vars: {repo_description: "A library.", issues: []}
    templates:
      - path: "**/*.j2"
  - name: harbor
    root: harbor
    jinja: {strict_undefined: true}
    vars: {task: t}
    templates:
      - path: "**"
`

const prompt = "# Task\n\n{{ repo_description }}\n{% for issue in issues %}\n- {{ issue.title }}\n{% endfor %}\n"

func input(t *testing.T, baseCfg, headCfg string, base, head map[string]string) *checks.Input {
	t.Helper()
	return checktest.PR(t, baseCfg, headCfg, base, head)
}

func findingsText(r checks.Result) string {
	var sb strings.Builder
	for _, f := range r.Findings {
		sb.WriteString(string(f.Level) + " " + f.Path + ":" + strconv.Itoa(f.Line) + " " + f.Message + "\n")
	}
	return sb.String()
}

func TestNames(t *testing.T) {
	t.Parallel()
	base := map[string]string{"prompts/final.md.j2": prompt, "harbor/test.sh": "echo {{ task }}\n"}
	withVar := strings.Replace(namesConfig, `issues: []}`, `issues: [], protected_paths: "benchmarks"}`, 1)
	tests := []struct {
		name             string
		baseCfg, headCfg string
		base, head       map[string]string
		want             checks.Conclusion
		wantText         []string
		wantNoFindings   bool
		wantNote         string
	}{
		{name: "the change reads a name no variable set defines",
			head:     map[string]string{"prompts/final.md.j2": prompt + "\nRULE: edits to {{ protected_paths }} are discarded.\n"},
			want:     checks.Failure,
			wantText: []string{"failure prompts/final.md.j2:8 prompts/final.md.j2 reads protected_paths, which no variable set of group prompts defines."}},
		{name: "near miss: the name has a default",
			head: map[string]string{"prompts/final.md.j2": prompt + "\nRULE: edits to {{ protected_paths | default('benchmarks') }} are discarded.\n"},
			want: checks.Success, wantNoFindings: true},
		{name: "near miss: the name is tested with is defined",
			head: map[string]string{"prompts/final.md.j2": prompt + "{% if protected_paths is defined %}{{ protected_paths }}{% endif %}\n"},
			want: checks.Success, wantNoFindings: true},
		{name: "near miss: the base's config defines it", baseCfg: withVar,
			head: map[string]string{"prompts/final.md.j2": prompt + "{{ protected_paths }}\n"},
			want: checks.Success, wantNoFindings: true},
		{name: "only the head's config defines it", headCfg: withVar,
			head:     map[string]string{"prompts/final.md.j2": prompt + "{{ protected_paths }}\n"},
			want:     checks.Failure,
			wantText: []string{"Only the head's config defines it"}},
		{name: "names the template sets or loops over are defined",
			head: map[string]string{"prompts/final.md.j2": prompt + "{% set x = 1 %}{{ x }}{% for y in issues %}{{ y }}{{ loop.index }}{% endfor %}{{ range(2) | list }}\n"},
			want: checks.Success, wantNoFindings: true},
		{name: "through an include",
			base: map[string]string{"prompts/rules.inc": "RULE: {{ protected_paths }}\n"},
			head: map[string]string{"prompts/final.md.j2": prompt + "{% include 'rules.inc' %}\n"},
			want: checks.Failure, wantText: []string{"failure prompts/rules.inc:1 prompts/final.md.j2 reads protected_paths (through prompts/rules.inc)"}},
		{name: "a name the including template sets is defined in the include",
			base: map[string]string{"prompts/rules.inc": "RULE: {{ paths }}\n"},
			head: map[string]string{"prompts/final.md.j2": prompt + "{% set paths = 'benchmarks' %}{% include 'rules.inc' %}\n"},
			want: checks.Success, wantNoFindings: true},
		{name: "through an imported macro",
			base: map[string]string{"prompts/m.inc": "{% macro rule() %}{{ protected_paths }}{% endmacro %}\n"},
			head: map[string]string{"prompts/final.md.j2": prompt + "{% from 'm.inc' import rule %}{{ rule() }}\n"},
			want: checks.Failure, wantText: []string{"failure prompts/m.inc:1 ", "reads protected_paths (through prompts/m.inc)"}},
		{name: "a name the base had too is a warning",
			base: map[string]string{"prompts/final.md.j2": prompt + "{{ old_name }}\n"},
			head: map[string]string{"prompts/final.md.j2": prompt + "{{ old_name }}\nmore\n"},
			want: checks.Success, wantText: []string{"warning prompts/final.md.j2:7 ", "It fails before this change."}},
		{name: "pre_existing: fail", baseCfg: "pre_existing: fail\n" + namesConfig,
			base: map[string]string{"prompts/final.md.j2": prompt + "{{ old_name }}\n"},
			head: map[string]string{"prompts/final.md.j2": prompt + "{{ old_name }}\nmore\n"},
			want: checks.Failure, wantText: []string{"failure prompts/final.md.j2:7 ", "It fails before this change."}},
		{name: "names.ignore in the base config", baseCfg: namesConfig + "names: {ignore: [protected_paths]}\n",
			head: map[string]string{"prompts/final.md.j2": prompt + "{{ protected_paths }}\n"},
			want: checks.Success, wantNoFindings: true},
		{name: "names.ignore only in the head's config is not enough", headCfg: namesConfig + "names: {ignore: [protected_paths]}\n",
			head:     map[string]string{"prompts/final.md.j2": prompt + "{{ protected_paths }}\n"},
			want:     checks.Failure,
			wantText: []string{"Only the head's config defines it"}},
		{name: "a strict group is not this check's", head: map[string]string{"harbor/test.sh": "echo {{ task }} {{ nope }}\n"},
			want: checks.Skipped, wantNoFindings: true},
		{name: "a template Jinja2 cannot parse is left to the render check",
			head: map[string]string{"prompts/final.md.j2": "{% if %}\n"},
			want: checks.NotRun, wantNoFindings: true},
		{name: "an include by a computed name is a note",
			head: map[string]string{"prompts/final.md.j2": prompt + "{% include repo_description ~ '.inc' %}\n"},
			want: checks.Success, wantNoFindings: true, wantNote: "includes a template whose name is computed at render time"},
		{name: "an include cycle ends",
			base: map[string]string{"prompts/loop.inc": "{% include 'final.md.j2' %}{{ cycle_name }}\n"},
			head: map[string]string{"prompts/final.md.j2": prompt + "{% if false %}{% include 'loop.inc' %}{% endif %}\n"},
			want: checks.Failure, wantText: []string{"failure prompts/loop.inc:1 ", "reads cycle_name (through prompts/loop.inc)"}},
		{name: "a template too deep for the parser is a note, not a crash",
			head: map[string]string{"prompts/final.md.j2": "{{ " + strings.Repeat("(", 20000) + "x" + strings.Repeat(")", 20000) + " }}\n"},
			want: checks.NotRun, wantNoFindings: true},
		{name: "globals are defined, and parsing runs no template code",
			head: map[string]string{"prompts/final.md.j2": prompt + "{{ ''.__class__.__mro__[1].__subclasses__() }}{{ cycler.__init__.__globals__.os.system('touch /tmp/tv-names-pwned') }}\n"},
			want: checks.Success, wantNoFindings: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.baseCfg == "" {
				tt.baseCfg = namesConfig
			}
			if tt.headCfg == "" {
				tt.headCfg = tt.baseCfg
			}
			b := map[string]string{}
			for k, v := range base {
				b[k] = v
			}
			for k, v := range tt.base {
				b[k] = v
			}
			in := input(t, tt.baseCfg, tt.headCfg, b, tt.head)
			res := New().Run(context.Background(), in)
			text := findingsText(res)
			if res.Conclusion != tt.want {
				t.Errorf("conclusion %s (%s), want %s\n%s%v", res.Conclusion, res.Title, tt.want, text, res.Notes)
			}
			if tt.wantNoFindings && len(res.Findings) > 0 {
				t.Errorf("findings, want none:\n%s", text)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tt.wantNote) {
				t.Errorf("notes lack %q: %q", tt.wantNote, res.Notes)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("findings lack %q:\n%s", w, text)
				}
			}
		})
	}
}

func TestNamesWithoutPythonIsNotRun(t *testing.T) {
	t.Parallel()
	in := input(t, namesConfig, namesConfig, map[string]string{"prompts/final.md.j2": prompt},
		map[string]string{"prompts/final.md.j2": prompt + "{{ protected_paths }}\n"})
	c := New()
	c.Python = func(context.Context) (string, string, bool) { return "", "", false }
	res := c.Run(context.Background(), in)
	if res.Conclusion != checks.NotRun || len(res.Findings) != 0 {
		t.Errorf("conclusion %s with %d findings, want not_run and none", res.Conclusion, len(res.Findings))
	}
}
