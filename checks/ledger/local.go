package ledger

import (
	"context"
	"fmt"
)

// VerifyFunc verifies the change from base to head in the repository at
// repo on this machine and returns the conclusion its gate would publish:
// success or failure.
type VerifyFunc func(ctx context.Context, repo, base, head string) (conclusion string, err error)

// Local is a Source that re-verifies each merged head against the release
// branch it merged into (the merge's first parent), as the pull request's
// own verification did.
type Local struct {
	Repo    string
	RunName string
	Verify  VerifyFunc
	parents map[string]string // merged head -> first parent of the merge
}

// NewLocal returns a Local source for entries.
func NewLocal(repo, runName string, verify VerifyFunc, entries []Entry) *Local {
	l := &Local{Repo: repo, RunName: runName, Verify: verify, parents: map[string]string{}}
	for _, e := range entries {
		if e.Head != "" {
			l.parents[e.Head] = e.Parent
		}
	}
	return l
}

// CheckRunsAt implements Source: one completed run of RunName at a merged
// head, from a verification of the merge's first parent to the head.
func (l *Local) CheckRunsAt(ctx context.Context, sha string) ([]Run, error) {
	base, ok := l.parents[sha]
	if !ok {
		return nil, nil
	}
	c, err := l.Verify(ctx, l.Repo, base, sha)
	if err != nil {
		return nil, fmt.Errorf("verify %s..%s: %w", short(base), short(sha), err)
	}
	return []Run{{Name: l.RunName, HeadSHA: sha, Status: "completed", Conclusion: c}}, nil
}
