package render

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

const testConfig = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {name: world, nothing: null}
    matrix: {flag: [true, false]}
    exclude: ["*.inc"]
    templates:
      - path: "**"
`

// input builds a repository whose base holds base files and whose head
// writes head files on top, and returns the check input for the change.
func input(t *testing.T, base, head map[string]string) *checks.Input {
	t.Helper()
	return inputConfig(t, testConfig, base, head, nil)
}

func noPython(context.Context) (string, string, bool) { return "", "", false }

func runCheck(t *testing.T, in *checks.Input, withPython bool) checks.Result {
	t.Helper()
	c := New()
	if !withPython {
		c.Python = noPython
	}
	return c.Run(context.Background(), in)
}

func findingsText(r checks.Result) string {
	var sb strings.Builder
	for _, f := range r.Findings {
		sb.WriteString(string(f.Level) + " " + f.Path + ":" + strconv.Itoa(f.Line) + " " + f.Message + "\n")
	}
	return sb.String()
}

func TestRenderFindings(t *testing.T) {
	t.Parallel()
	base := map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho {{ name }}\n"}
	cases := []struct {
		name        string
		head        map[string]string
		want        checks.Conclusion
		wantFinding []string // substrings of "level path:line message" lines
	}{
		{
			name: "clean change passes",
			head: map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho hi {{ name }}\n"},
			want: checks.Success,
		},
		{
			name:        "undefined variable names file and line",
			head:        map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho {{ name }}\n{% if not flag %}\necho {{ reason }}\n{% endif %}\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/run.sh:4 ", "reason"},
		},
		{
			name:        "syntax error names file and line",
			head:        map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho ok\n{% for x in %}\n{% endfor %}\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/run.sh:3 "},
		},
		{
			name:        "unclosed if in one branch points at the if",
			head:        map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho {{ name }}\n{% if flag %}\nif [ -n \"$X\" ]; then\n  echo x\n{% endif %}\necho done\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/run.sh:4 bash -n fails at line 4 of the rendered script:"},
		},
		{
			name:        "a bad token maps back to its template line",
			head:        map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho {{ name }}\necho a )\necho b\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/run.sh:3 bash -n fails"},
		},
		{
			name:        "not UTF-8",
			head:        map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho ok\necho \xff\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/run.sh:3 ", "not valid UTF-8"},
		},
		{
			name:        "new template with an error",
			head:        map[string]string{"tpl/new.sh": "{% if flag %}echo {{ nope }}{% endif %}\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/new.sh:1 "},
		},
		{
			// No set renders it: the sets lack a name, which is the
			// tool's want of evidence, not a verdict.
			name:        "new template that no set renders",
			head:        map[string]string{"tpl/new.sh": "echo {{ nope }}\n"},
			want:        checks.NotRun,
			wantFinding: []string{"warning tpl/new.sh:1 ", "The sets lack `nope`"},
		},
		{
			name:        "error inside an included file names that file",
			head:        map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\n{% include 'part.inc' %}\n", "tpl/part.inc": "echo a\necho {{ undefined_in_include }}\n"},
			want:        checks.Failure,
			wantFinding: []string{"failure tpl/part.inc:2 "},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := runCheck(t, input(t, base, tc.head), false)
			got := findingsText(res)
			if res.Conclusion != tc.want {
				t.Errorf("conclusion %s, want %s\n%s", res.Conclusion, tc.want, got)
			}
			for _, w := range tc.wantFinding {
				if !strings.Contains(got, w) {
					t.Errorf("findings miss %q:\n%s", w, got)
				}
			}
			if tc.want == checks.Success && res.Failures() != 0 {
				t.Errorf("passing result has failures:\n%s", got)
			}
		})
	}
}

func TestRenderErrorOnlyAtBaseIsANotice(t *testing.T) {
	t.Parallel()
	in := input(t,
		map[string]string{"tpl/run.sh": "echo {{ typo }}\n"},
		map[string]string{"tpl/run.sh": "echo {{ name }}\n"})
	res := runCheck(t, in, false)
	if res.Conclusion != checks.Success {
		t.Fatalf("conclusion %s:\n%s", res.Conclusion, findingsText(res))
	}
	if got := findingsText(res); !strings.Contains(got, "notice tpl/run.sh:1") {
		t.Errorf("want a notice for the base error, got:\n%s", got)
	}
}

func TestRenderChanges(t *testing.T) {
	t.Parallel()
	in := input(t,
		map[string]string{"tpl/run.sh": "a\n{% if flag %}b{% endif %}\nc\n{% include 'x.inc' %}\n", "tpl/x.inc": "x\n", "tpl/same.sh": "s {% include 'x.inc' %}"},
		map[string]string{"tpl/run.sh": "a\n{% if flag %}B{% endif %}\nc\nd\n{% include 'x.inc' %}\n", "tpl/x.inc": "x\n"})
	res := runCheck(t, in, false)
	if len(res.Changes) != 1 {
		t.Fatalf("want 1 change, got %+v", res.Changes)
	}
	c := res.Changes[0]
	if c.Path != "tpl/run.sh" || c.Status != "modified" {
		t.Errorf("change %+v", c)
	}
	// flag=true: b->B and +d (2 added, 1 removed); flag=false: +d. The
	// counts are those of the diff shown (flag=true), never a sum.
	if c.Added != 2 || c.Removed != 1 {
		t.Errorf("added %d removed %d, want 2 and 1", c.Added, c.Removed)
	}
	if c.Sets != 2 || !slices.Equal(c.AddedPerSet, []int{2, 1}) || !slices.Equal(c.RemovedPerSet, []int{1, 0}) {
		t.Errorf("sets %d, added per set %v, removed per set %v; want 2, [2 1], [1 0]", c.Sets, c.AddedPerSet, c.RemovedPerSet)
	}
	if !strings.Contains(c.Diff, "+B") || c.FirstAdded != "B" || c.FirstRemoved != "b" {
		t.Errorf("first added %q, first removed %q, diff %q", c.FirstAdded, c.FirstRemoved, c.Diff)
	}
}

func TestRenderIncludedChange(t *testing.T) {
	t.Parallel()
	in := input(t,
		map[string]string{"tpl/run.sh": "{% include 'x.inc' %}\n", "tpl/x.inc": "one\n"},
		map[string]string{"tpl/x.inc": "two\n"})
	res := runCheck(t, in, false)
	if len(res.Changes) != 1 || res.Changes[0].Status != "included" || !strings.Contains(strings.Join(res.Changes[0].Via, " "), "x.inc") {
		t.Fatalf("changes %+v", res.Changes)
	}
}

func TestCrossCheckNotRunIsNeverPassed(t *testing.T) {
	t.Parallel()
	in := input(t, map[string]string{"tpl/run.sh": "a\n"}, map[string]string{"tpl/run.sh": "b\n"})
	res := runCheck(t, in, false)
	var fig string
	for _, f := range res.Figures {
		if f.Label == "Engine" {
			fig = f.Value
		}
	}
	if fig != "gonja (Python Jinja2 not run)" {
		t.Errorf("engine figure %q, want \"gonja (Python Jinja2 not run)\"", fig)
	}
	if !strings.Contains(strings.Join(res.Notes, " "), "gonja rendered every template") {
		t.Errorf("notes %v do not say gonja rendered", res.Notes)
	}
}

func TestEngineFigure(t *testing.T) {
	t.Parallel()
	needJinja2(t)
	in := input(t, map[string]string{"tpl/run.txt": "a\n"}, map[string]string{"tpl/run.txt": "{{ name }}\n"})
	res := runCheck(t, in, true)
	if len(res.Findings) != 0 {
		t.Fatalf("unexpected findings:\n%s", findingsText(res))
	}
	found := false
	for _, f := range res.Figures {
		found = found || (f.Label == "Engine" && strings.Contains(f.Value, "rendered 4 renders; gonja differs in 0"))
	}
	if !found {
		t.Errorf("figures %+v", res.Figures)
	}
}

func TestTemplateLine(t *testing.T) {
	t.Parallel()
	src := "#!/bin/bash\n{% if a %}\necho {{ x }} y\n{% endif %}\nfi\necho {{ x }} y\n"
	rendered := "#!/bin/bash\necho 1 y\nfi\necho 1 y\n"
	cases := []struct{ line, want int }{
		{2, 3}, // nearest of two matches
		{4, 6},
		{3, 5},
		{1, 1},
		{0, 0},
		{99, 0},
	}
	for _, tc := range cases {
		if got := templateLine(src, rendered, tc.line); got != tc.want {
			t.Errorf("templateLine(%d) = %d, want %d", tc.line, got, tc.want)
		}
	}
}
