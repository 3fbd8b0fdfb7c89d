package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown/markdowntest"
)

// TestHostileOutput sends text a pull request controls through the
// check-run output: summary and text are markdown, title and annotations
// are plain text.
func TestHostileOutput(t *testing.T) {
	var findings []checks.Finding
	var changes []checks.Change
	var rows [][]string
	var figs []checks.Figure
	for i, h := range markdowntest.Hostile {
		findings = append(findings, checks.Finding{Path: "t/" + h, Line: i + 1, Level: checks.LevelFailure, Title: h, Message: h, Details: h})
		changes = append(changes, checks.Change{Path: h, Status: h, Headline: h, Effect: h, Before: h, Added: 1, Diff: h})
		rows = append(rows, []string{h, h, h})
		figs = append(figs, checks.Figure{Label: h, Value: h, Command: h})
	}
	res := checks.Result{
		Check: "render", Conclusion: checks.Failure, Title: strings.Join(markdowntest.Hostile, " "), Summary: strings.Join(markdowntest.Hostile, "\n\n"),
		Findings: findings, Changes: changes, Figures: figs, Notes: markdowntest.Hostile, Details: strings.Join(markdowntest.Hostile, "\n"),
		Tables: []checks.Table{{Title: markdowntest.Hostile[3], Header: []string{"a", "b", "c"}, Rows: rows}},
	}
	out := OutputOf(res, "template-verify run", 0)
	for _, tc := range []struct {
		name     string
		text     string
		markdown bool
	}{
		{"summary", out.Summary, true},
		{"text", out.Text, true},
		{"title", out.Title, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := markdowntest.UnsafeAnywhere(tc.text)
			if tc.markdown {
				bad = markdowntest.Unsafe(tc.text, false)
			}
			for _, b := range bad {
				t.Error(b)
			}
		})
	}
	t.Run("annotations", func(t *testing.T) {
		if len(out.Annotations) != len(findings) {
			t.Fatalf("%d annotations, want %d", len(out.Annotations), len(findings))
		}
		for _, a := range out.Annotations {
			for _, s := range []string{a.Path, a.Title, a.Message, a.Details} {
				for _, b := range markdowntest.UnsafeAnywhere(s) {
					t.Errorf("%s in %q", b, s)
				}
			}
		}
	})
}

// TestLinksOf gives the comment the pages of the check runs that Start
// made on the fake GitHub.
func TestLinksOf(t *testing.T) {
	e := setup(t, true)
	runs, err := e.pub.Start(context.Background(), []string{"render", "restore"})
	if err != nil {
		t.Fatal(err)
	}
	l := LinksOf("https://github.invalid/", "octo", "hello", runs, "https://github.invalid/octo/hello/actions/runs/9")
	if l.Repo != "https://github.invalid/octo/hello" || l.Run != "https://github.invalid/octo/hello/actions/runs/9" {
		t.Errorf("links %+v", l)
	}
	for _, c := range []string{"render", "restore", GateCheck} {
		if !strings.HasPrefix(l.CheckRuns[c], "http") {
			t.Errorf("no page for the check run of %s: %+v", c, l.CheckRuns)
		}
	}
	if got := LinksOf("", "octo", "hello", nil, ""); got.Repo != "" || got.CheckRuns != nil {
		t.Errorf("links without a server: %+v", got)
	}
}
