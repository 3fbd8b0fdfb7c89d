package githubapi

import (
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
