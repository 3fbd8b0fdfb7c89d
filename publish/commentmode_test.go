package publish

import (
	"context"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/plan"
	"github.com/formula-code/template-verify/report"
)

// commentFor creates the comment only when the mode wants one for the
// report, edits the one that exists in every mode but off, and never
// touches another author's comment.
func TestCommentFor(t *testing.T) {
	t.Parallel()
	passing := func(templates bool) *report.Report {
		rs := []checks.Result{{Check: "render", Conclusion: checks.Success}}
		rep := &report.Report{Results: rs, Overall: checks.Overall(rs)}
		if templates {
			rep.Templates = []plan.Template{{Group: "tests", Path: "templates/test.sh", Status: "modified"}}
		}
		return rep
	}
	failing := sampleReport()
	cases := []struct {
		name    string
		mode    CommentMode
		rep     *report.Report
		exists  bool
		want    bool // a comment of ours after the call
		created bool
	}{
		{"always, nothing changed", CommentAlways, passing(false), false, true, true},
		{"changes, nothing changed", CommentChanges, passing(false), false, false, false},
		{"changes, nothing changed, comment exists", CommentChanges, passing(false), true, true, false},
		{"changes, a template changed", CommentChanges, passing(true), false, true, true},
		{"failures, passing", CommentFailures, passing(true), false, false, false},
		{"failures, passing, comment exists", CommentFailures, passing(true), true, true, false},
		{"failures, failing", CommentFailures, failing, false, true, true},
		{"off, failing", CommentOff, failing, false, false, false},
		{"off, comment exists", CommentOff, failing, true, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, false)
			e.srv.AddComment(full, prNum, "mallory", report.Marker+"\nnot ours")
			var old int64
			if tc.exists {
				old = e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nold")
			}
			res, ok, err := e.pub.commentFor(context.Background(), tc.mode, tc.rep, "new")
			if err != nil {
				t.Fatal(err)
			}
			var ours []fakegithub.Comment
			for _, c := range e.srv.Comments(full, prNum) {
				if c.Author == fakegithub.DefaultLogin {
					ours = append(ours, c)
				}
			}
			if got := len(ours) == 1; got != tc.want || len(ours) > 1 {
				t.Fatalf("%d comments of ours, want a comment: %v", len(ours), tc.want)
			}
			published := tc.want && (tc.mode != CommentOff)
			if ok != published || res.Created != tc.created {
				t.Errorf("ok %v created %v, want %v %v", ok, res.Created, published, tc.created)
			}
			if tc.exists && tc.mode != CommentOff && (res.ID != old || ours[0].Body != report.Marker+"\nnew") {
				t.Errorf("the comment that exists was not edited: %+v", ours)
			}
			if tc.mode == CommentOff && tc.exists && ours[0].Body != report.Marker+"\nold" {
				t.Errorf("off edited the comment: %q", ours[0].Body)
			}
		})
	}
}

func TestParseCommentMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want CommentMode
		err  bool
	}{{"", CommentChanges, false}, {"Always", CommentAlways, false}, {" off ", CommentOff, false}, {"failures", CommentFailures, false}, {"sometimes", "", true}}
	for _, tc := range cases {
		got, err := ParseCommentMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseCommentMode(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// Another comment of the same login (every workflow's GITHUB_TOKEN posts
// as github-actions[bot]) that quotes the marker further down is not
// ours: it is neither edited nor deleted. Two copies of ours: the oldest
// is kept and edited, the other deleted.
func TestCommentIgnoresQuotesOfTheMarker(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	quote := "Another bot quotes a comment:\n> " + report.Marker + "\n> old report"
	q := e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, quote)
	first := e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nfirst")
	e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nsecond")
	res, err := e.pub.Comment(context.Background(), "new")
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != first {
		t.Errorf("edited comment %d, want the oldest of ours %d (not the quote %d)", res.ID, first, q)
	}
	cs := e.srv.Comments(full, prNum)
	if len(cs) != 2 || cs[0].ID != q || cs[0].Body != quote || cs[1].ID != first || cs[1].Body != report.Marker+"\nnew" {
		t.Errorf("comments after: %+v", cs)
	}
}
