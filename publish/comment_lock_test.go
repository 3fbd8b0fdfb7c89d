package publish

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/report"
)

// Publishers of one pull request that write the comment at the same time
// (two workers, two jobs) make one comment, not one each (issue 14.14).
func TestCommentConcurrentWritersMakeOne(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const writers = 8
	pubs := make([]*publisher, writers)
	for i := range pubs {
		c, err := githubapi.NewClient(e.srv.URL, "tok", &githubapi.Transport{Clock: e.clock, WriteInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		if pubs[i], err = newPublisher(Target{Client: c, Owner: owner, Repo: repo, HeadSHA: headSHA, PR: prNum,
			CommentAuthor: fakegithub.DefaultLogin, Clock: e.clock}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i, p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = p.Comment(context.Background(), report.Marker+"\nreport")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if cs := e.srv.Comments(full, prNum); len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
}

// When earlier runs left more than one comment with the marker, the
// oldest is edited and the others are deleted; other people's comments
// stay.
func TestCommentKeepsOldestDeletesOtherCopies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		copies int
	}{{"two", 2}, {"five", 5}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := setup(t, false)
			e.srv.AddComment(full, prNum, "reviewer", "LGTM")
			e.srv.AddComment(full, prNum, "mallory", report.Marker+"\nnot ours")
			var ids []int64
			for i := 0; i < c.copies; i++ {
				ids = append(ids, e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nold"))
			}
			res, err := e.pub.Comment(context.Background(), report.Marker+"\nnew report")
			if err != nil {
				t.Fatal(err)
			}
			if res.Created || res.ID != ids[0] {
				t.Fatalf("result %+v, want an edit of the oldest, %d", res, ids[0])
			}
			cs := e.srv.Comments(full, prNum)
			var ours []fakegithub.Comment
			for _, cm := range cs {
				if cm.Author == fakegithub.DefaultLogin {
					ours = append(ours, cm)
				}
			}
			if len(cs) != 3 || len(ours) != 1 || ours[0].ID != ids[0] || !strings.HasSuffix(ours[0].Body, "new report") {
				t.Fatalf("comments after: %+v", cs)
			}
		})
	}
}
