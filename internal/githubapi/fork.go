package githubapi

import (
	"strings"

	"github.com/google/go-github/v62/github"
)

// IsFork reports whether a pull request's code comes from outside its
// base repository, so that the pull request gets a read-only token and
// its code does not run without a maintainer. It is a fork when the head
// repository
//
//   - is gone (nil, or no full name: the fork was deleted),
//   - has another full name than the base (compared without case, as
//     GitHub compares them),
//   - has another id than the base (when both events carry ids: a
//     repository deleted and made again under the same name), or
//   - differs from the base in the fork flag (one of them is a fork of
//     the other).
//
// The fork flag alone does not make a fork: in a repository that is
// itself a fork, a branch of the same repository has fork true on both
// sides.
func IsFork(base, head *github.Repository) bool {
	if head == nil || head.GetFullName() == "" || base == nil {
		return true
	}
	if !strings.EqualFold(head.GetFullName(), base.GetFullName()) {
		return true
	}
	if head.GetID() != 0 && base.GetID() != 0 && head.GetID() != base.GetID() {
		return true
	}
	return head.GetFork() != base.GetFork()
}
