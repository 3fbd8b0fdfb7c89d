package githubapi

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-github/v62/github"
)

func TestIsFork(t *testing.T) {
	t.Parallel()
	repo := func(name string, id int64, fork bool) *github.Repository {
		return &github.Repository{FullName: github.String(name), ID: github.Int64(id), Fork: github.Bool(fork)}
	}
	base := repo("octo/hello", 1, false)
	for _, tc := range []struct {
		name       string
		base, head *github.Repository
		want       bool
	}{
		{"same repository", base, repo("octo/hello", 1, false), false},
		{"same repository, owner in another case", base, repo("Octo/Hello", 1, false), false},
		{"same repository without ids", repo("octo/hello", 0, false), repo("OCTO/hello", 0, false), false},
		{"a branch of a repository that is itself a fork", repo("octo/hello", 1, true), repo("octo/hello", 1, true), false},
		{"another owner's fork", base, repo("mallory/hello", 2, true), true},
		{"another owner, fork flag not set", base, repo("mallory/hello", 2, false), true},
		{"head marked a fork, same name", base, repo("octo/hello", 1, true), true},
		{"same name, another id (deleted and made again)", base, repo("octo/hello", 3, false), true},
		{"head repository deleted (null)", base, nil, true},
		{"head repository without a name", base, &github.Repository{}, true},
		{"no base repository", nil, repo("octo/hello", 1, false), true},
	} {
		if got := IsFork(tc.base, tc.head); got != tc.want {
			t.Errorf("%s: IsFork = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestIsForkOnRealPayloads runs IsFork on the repositories of complete
// webhook payloads, which carry ids, so its id comparison runs: the
// Action's workflow_run of a fork's pull request, and a pull request from
// a branch of the same repository.
func TestIsForkOnRealPayloads(t *testing.T) {
	t.Parallel()
	var run github.WorkflowRunEvent
	readPayload(t, "../../action/testdata/github-webhooks/workflow_run/completed.payload.json", &run)
	base, head := run.GetRepo(), run.GetWorkflowRun().GetHeadRepository()
	if base.GetID() == 0 || head.GetID() == 0 || base.GetID() == head.GetID() {
		t.Fatalf("the payload's ids: base %d, head %d; want two different ids", base.GetID(), head.GetID())
	}
	if !IsFork(base, head) {
		t.Error("the fork's workflow_run: IsFork = false")
	}
	// Only the ids tell these apart: the head has the base's name and
	// fork flag, but another id (the repository was deleted and made
	// again under the same name).
	same := *head
	same.FullName, same.Fork = base.FullName, base.Fork
	if !IsFork(base, &same) {
		t.Error("same name and fork flag, another id: IsFork = false")
	}
	same.ID = base.ID
	if IsFork(base, &same) {
		t.Error("same name, fork flag and id: IsFork = true")
	}

	var pr github.PullRequestEvent
	readPayload(t, "../../action/testdata/github-webhooks/pull_request/synchronize.payload.json", &pr)
	b, h := pr.GetPullRequest().GetBase().GetRepo(), pr.GetPullRequest().GetHead().GetRepo()
	if b.GetID() == 0 || b.GetID() != h.GetID() {
		t.Fatalf("the pull request's ids: base %d, head %d; want one id", b.GetID(), h.GetID())
	}
	if IsFork(b, h) {
		t.Error("a branch of the same repository: IsFork = true")
	}
}

func readPayload(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
