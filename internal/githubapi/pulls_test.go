package githubapi_test

import (
	"context"
	"slices"
	"testing"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githubapi"
)

// TestPullsWithHead: of the pull requests GitHub lists for a commit, only
// the open ones whose head is that commit are the pull requests of the head.
func TestPullsWithHead(t *testing.T) {
	srv := fakegithub.New(t)
	const repo = "octo/hello"
	srv.AddPull(repo, fakegithub.Pull{Number: 1, HeadSHA: "aaa", BaseSHA: "b", BaseRef: "main", HeadRef: "one"})
	srv.AddPull(repo, fakegithub.Pull{Number: 2, HeadSHA: "aaa", BaseSHA: "b", BaseRef: "main", HeadRef: "two", State: "closed"})
	srv.AddPull(repo, fakegithub.Pull{Number: 3, HeadSHA: "ccc", BaseSHA: "b", BaseRef: "main", HeadRef: "three"})
	srv.AddPull(repo, fakegithub.Pull{Number: 4, HeadSHA: "aaa", BaseSHA: "b", BaseRef: "release", HeadRef: "four", HeadRepo: "someone/hello", Fork: true})
	client, err := githubapi.NewClient(srv.URL, "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sha  string
		want []int
	}{
		{"aaa", []int{1, 4}},
		{"ccc", []int{3}},
		{"ddd", nil},
	} {
		prs, err := githubapi.PullsWithHead(context.Background(), client, "octo", "hello", tc.sha)
		if err != nil {
			t.Fatalf("%s: %v", tc.sha, err)
		}
		var got []int
		for _, p := range prs {
			got = append(got, p.GetNumber())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: pulls %v, want %v", tc.sha, got, tc.want)
		}
	}
}
