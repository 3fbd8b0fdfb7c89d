package publish

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/report"
)

// findComments reads at most maxCommentPages pages while it holds the
// pull request's lock (issue 20: it read every page). Our comment within
// the pages read is edited; past them, a new comment is made.
func TestCommentPagesAreCapped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		before int // comments before ours
		edit   bool
	}{
		{"ours on the last page read", maxCommentPages*100 - 1, true},
		{"ours past the pages read", maxCommentPages * 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			for i := range tc.before {
				e.srv.AddComment(full, prNum, "reviewer", fmt.Sprintf("comment %d", i))
			}
			ours := e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nold report")
			for i := range 500 {
				e.srv.AddComment(full, prNum, "reviewer", fmt.Sprintf("later comment %d", i))
			}
			e.srv.ClearRequests()
			res, err := e.pub.Comment(context.Background(), report.Marker+"\nnew report")
			if err != nil {
				t.Fatal(err)
			}
			lists := 0
			for _, r := range e.srv.Requests() {
				if r.Method == http.MethodGet {
					lists++
				}
			}
			if lists > maxCommentPages {
				t.Errorf("%d pages read; want at most %d", lists, maxCommentPages)
			}
			if tc.edit && (res.Created || res.ID != ours) || !tc.edit && !res.Created {
				t.Errorf("result %+v (ours %d); want edit %v", res, ours, tc.edit)
			}
		})
	}
}
