package report

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown/markdowntest"
	"github.com/formula-code/template-verify/plan"
)

// hostileReport puts every hostile string in every field a check or a
// pull request fills.
func hostileReport() *Report {
	r := baseReport()
	var findings []checks.Finding
	var changes []checks.Change
	var rows [][]string
	var figs []checks.Figure
	for i, h := range markdowntest.Hostile {
		findings = append(findings, checks.Finding{Path: h, Line: i + 1, Level: checks.LevelFailure, Title: h, Message: h, Details: h})
		changes = append(changes, checks.Change{Path: h, Status: "renamed", OldPath: h, Sets: 1, AddedPerSet: []int{1}, RemovedPerSet: []int{1}, FirstAdded: h, FirstRemoved: h, Added: 1, Diff: h},
			checks.Change{Path: h, Status: "included", Via: []string{h, h}, Sets: 1, SameSets: 1})
		rows = append(rows, []string{h, h, h})
		figs = append(figs, checks.Figure{Label: h, Value: h, Command: h})
		r.Templates = append(r.Templates, plan.Template{Group: "g", Path: h, OldPath: h, Rel: h, OldRel: h, Status: plan.Modified})
	}
	r.Results = []checks.Result{{
		Check: "render", Conclusion: checks.Failure, Title: strings.Join(markdowntest.Hostile, " "), Summary: strings.Join(markdowntest.Hostile, "\n\n"),
		Findings: findings, Changes: changes, Figures: figs, Notes: markdowntest.Hostile, Details: strings.Join(markdowntest.Hostile, "\n"),
		Tables: []checks.Table{{Title: markdowntest.Hostile[3], Header: []string{"a", "b", "c"}, Rows: rows}},
	}}
	r.Notes = markdowntest.Hostile
	r.Overall = checks.Failure
	return r
}

func TestHostileTextIsData(t *testing.T) {
	t.Parallel()
	r := hostileReport()
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		out     string
		comment bool
	}{
		{"comment", md, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, b := range markdowntest.Unsafe(tc.out, tc.comment) {
				t.Error(b)
			}
		})
	}
	t.Run("terminal", func(t *testing.T) {
		for _, b := range markdowntest.UnsafeAnywhere(r.Text()) {
			t.Error(b)
		}
	})
}

func TestMarkerCopy(t *testing.T) {
	t.Parallel()
	if Marker != markdowntest.Marker {
		t.Errorf("markdowntest.Marker is %q, want report.Marker %q", markdowntest.Marker, Marker)
	}
}

func TestIsComment(t *testing.T) {
	t.Parallel()
	md, err := hostileReport().Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body string
		want bool
	}{
		{md, true},
		{"\n" + Marker + "\nold body", true},
		{"> quoting it:\n" + Marker + "\n", false},
		{"see `" + Marker + "`", false},
		{"", false},
	} {
		if got := IsComment(tc.body); got != tc.want {
			t.Errorf("IsComment(%.40q) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
