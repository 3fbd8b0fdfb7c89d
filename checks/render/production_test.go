package render

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

func needJinja2(t *testing.T) {
	t.Helper()
	if _, _, ok := jinja.FindPython(context.Background()); !ok {
		t.Skip("no python3 with jinja2 on this machine: not run")
	}
}

// problems returns the warning and failure findings as text.
func problems(r checks.Result) string {
	var out checks.Result
	for _, f := range r.Findings {
		if f.Level == checks.LevelFailure || f.Level == checks.LevelWarning {
			out.Findings = append(out.Findings, f)
		}
	}
	return findingsText(out)
}

// TestBytesOfRecordAreJinja2: where Python Jinja2 is installed, its bytes
// (production's) feed the diff, bash -n and the findings; a gonja/Jinja2
// difference is an engine note, never a finding against the PR.
func TestBytesOfRecordAreJinja2(t *testing.T) {
	t.Parallel()
	needJinja2(t)
	cases := []struct {
		name    string
		head    string
		want    checks.Conclusion
		diff    string // in the change's diff
		finding string // in a failure finding ("" : no warning or failure)
		line    int
		noteHas string
	}{
		// The bytes of record hold None, so the rendered-value lint sees it.
		{name: "None renders as None", head: "#!/bin/bash\nrun --rounds {{ nothing }}\n",
			want: checks.Failure, diff: "+run --rounds None", noteHas: "gonja renders", finding: "Python value `None`", line: 2},
		{name: "bash -n reads Jinja2's bytes", head: "#!/bin/bash\n{{ nothing }}() { :; }\n",
			want: checks.Success, diff: "+None() { :; }"},
		{name: "gonja fails where Jinja2 renders", head: "#!/bin/bash\necho {{ '%s-%s' % (name, 1) }}\n",
			want: checks.Success, diff: "+echo world-1"},
		{name: "Jinja2 fails where gonja renders", head: "#!/bin/bash\necho ok\necho {{ name|format(1) }}\n",
			want: checks.Failure, finding: "TypeError", line: 3},
		{name: "an unclosed if names the line of the if", head: "#!/bin/bash\n{% if flag %}\necho a\necho b\necho c\n",
			want: checks.Failure, finding: "if", line: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := input(t, map[string]string{"tpl/run.sh": "#!/bin/bash\necho base\n"}, map[string]string{"tpl/run.sh": c.head})
			res := runCheck(t, in, true)
			if res.Conclusion != c.want {
				t.Errorf("conclusion %s, want %s:\n%s", res.Conclusion, c.want, findingsText(res))
			}
			if c.finding == "" {
				if p := problems(res); p != "" {
					t.Errorf("want no warning or failure, got:\n%s", p)
				}
			} else {
				found := false
				for _, f := range res.Findings {
					found = found || (f.Level == checks.LevelFailure && f.Path == "tpl/run.sh" && f.Line == c.line && strings.Contains(f.Message, c.finding))
				}
				if !found {
					t.Errorf("no failure at tpl/run.sh:%d with %q:\n%s", c.line, c.finding, findingsText(res))
				}
			}
			if c.diff != "" && (len(res.Changes) != 1 || !strings.Contains(res.Changes[0].Diff, c.diff)) {
				t.Errorf("the diff has no %q: %+v", c.diff, res.Changes)
			}
			notes := strings.Join(res.Notes, "\n")
			if !strings.Contains(notes, "Python Jinja2") {
				t.Errorf("the notes do not say which engine rendered:\n%s", notes)
			}
			if c.noteHas != "" && !strings.Contains(notes, c.noteHas) {
				t.Errorf("the notes have no %q:\n%s", c.noteHas, notes)
			}
		})
	}
}

// TestGonjaWithoutPython: without Jinja2, gonja's bytes are used and the
// notes say so.
func TestGonjaWithoutPython(t *testing.T) {
	t.Parallel()
	in := input(t, map[string]string{"tpl/run.sh": "a\n"}, map[string]string{"tpl/run.sh": "run --rounds {{ nothing }}\n"})
	res := runCheck(t, in, false)
	if len(res.Changes) != 1 || !strings.Contains(res.Changes[0].Diff, "+run --rounds \n") {
		t.Errorf("want gonja's bytes in the diff: %+v", res.Changes)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "gonja rendered") {
		t.Errorf("the notes do not say gonja rendered:\n%s", notes)
	}
}

// TestChangesPerVariableSet: the Changes line never says "output
// unchanged" when the head does not render, and counts lines per variable
// set, never summed over sets.
func TestChangesPerVariableSet(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, base, head string
		headFails, same  int
		added            []int // lines added per changed set, in set order
	}{
		{name: "head render fails", base: "#!/bin/bash\necho hi\n", head: "#!/bin/bash\necho {{ nope }}\n", headFails: 2},
		{name: "same count in each set", base: "x\n", head: "x\ny {{ flag }}\n", added: []int{1, 1}},
		{name: "a range of counts", base: "x\n", head: "x\n{% if flag %}y\nz\n{% endif %}w\n", added: []int{3, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := runCheck(t, input(t, map[string]string{"tpl/run.txt": c.base}, map[string]string{"tpl/run.txt": c.head}), false)
			if len(res.Changes) != 1 {
				t.Fatalf("changes %+v", res.Changes)
			}
			ch := res.Changes[0]
			if ch.Sets != 2 || ch.HeadFails != c.headFails || ch.SameSets != c.same || !slices.Equal(ch.AddedPerSet, c.added) {
				t.Errorf("sets %d, head fails %d, same %d, added per set %v; want 2, %d, %d, %v",
					ch.Sets, ch.HeadFails, ch.SameSets, ch.AddedPerSet, c.headFails, c.same, c.added)
			}
		})
	}
}

// TestSameFindingInManySetsIsOne: a finding that every variable set has
// the same way is one finding that lists the sets.
func TestSameFindingInManySetsIsOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, head, title string
	}{
		{"render error", "#!/bin/bash\necho {{ nope }}\n", "Render error"},
		{"bash -n", "#!/bin/bash\necho {{ flag }}\nif true; then\n", "bash -n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := runCheck(t, input(t, map[string]string{"tpl/run.sh": "#!/bin/bash\n"}, map[string]string{"tpl/run.sh": c.head}), false)
			var got []checks.Finding
			for _, f := range res.Findings {
				if strings.Contains(f.Title, c.title) {
					got = append(got, f)
				}
			}
			if len(got) != 1 {
				t.Fatalf("%d findings titled %q, want 1:\n%s", len(got), c.title, findingsText(res))
			}
			text := got[0].Title + " " + got[0].Message
			if !strings.Contains(text, "flag=true") || !strings.Contains(text, "flag=false") {
				t.Errorf("the finding does not list both sets: %s", text)
			}
		})
	}
}
