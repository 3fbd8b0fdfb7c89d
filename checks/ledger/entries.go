package ledger

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/internal/gitx"
)

// Kind says what a commit on the release branch's first-parent line is.
type Kind string

const (
	// KindPR is the merge of a pull request ("Merge pull request #12 from ...").
	KindPR Kind = "pr"
	// KindSquash is a squash merge of a pull request ("Title (#12)"): its
	// head is not in the repository.
	KindSquash Kind = "squash"
	// KindFromBase merges the base branch into the release branch.
	KindFromBase Kind = "from-base"
	// KindMerge is a merge without a pull request number.
	KindMerge Kind = "merge"
	// KindDirect is a commit pushed to the release branch, not a merge.
	KindDirect Kind = "direct"
)

// Entry is one commit on the release branch's first-parent line since it
// left the base branch.
type Entry struct {
	Kind    Kind
	PR      int    // 0 when none
	Commit  string // the merge (or squash, or direct) commit
	Parent  string // its first parent: the release branch before it
	Head    string // the merged head (second parent); "" for squash and direct
	Subject string
	// Edited: the merge commit's tree is not the clean merge of its
	// parents, so it carries changes that no verified head has. Conflict
	// is true when the parents conflict and the merge resolved them.
	Edited, Conflict bool
}

var (
	mergePR  = regexp.MustCompile(`^Merge pull request #(\d+) from `)
	squashPR = regexp.MustCompile(`\(#(\d+)\)\s*$`)
)

// Entries lists the commits on head's first-parent line since it left
// base (the merge base), oldest first.
func Entries(ctx context.Context, repo gitx.Repo, base, head string) ([]Entry, error) {
	mb, err := repo.MergeBase(ctx, base, head)
	if err != nil {
		return nil, err
	}
	out, err := repo.Run(ctx, "log", "--first-parent", "--format=%H %P%x00%s%x00", mb+".."+head, "--")
	if err != nil {
		return nil, fmt.Errorf("list the release branch's commits: %w", err)
	}
	var entries []Entry
	recs := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		shas := strings.Fields(recs[i])
		if len(shas) < 2 {
			continue
		}
		e := Entry{Commit: shas[0], Parent: shas[1], Subject: strings.TrimSpace(recs[i+1])}
		switch {
		case len(shas) >= 3:
			e.Head = shas[2]
			if e.Edited, e.Conflict, err = edited(ctx, repo, e); err != nil {
				return nil, err
			}
			if m := mergePR.FindStringSubmatch(e.Subject); m != nil {
				e.Kind, e.PR = KindPR, atoi(m[1])
			} else if in, err := repo.IsAncestor(ctx, e.Head, base); err == nil && in {
				e.Kind = KindFromBase
			} else {
				e.Kind = KindMerge
			}
		default:
			if m := squashPR.FindStringSubmatch(e.Subject); m != nil {
				e.Kind, e.PR = KindSquash, atoi(m[1])
			} else {
				e.Kind = KindDirect
			}
		}
		entries = append(entries, e)
	}
	slices.Reverse(entries)
	return entries, nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// edited compares a merge commit's tree with the clean merge of its first
// two parents (git merge-tree --write-tree, which changes no ref, index or
// work tree).
func edited(ctx context.Context, repo gitx.Repo, e Entry) (edited, conflict bool, err error) {
	out, err := repo.Run(ctx, "merge-tree", "--write-tree", "--no-messages", e.Parent, e.Head)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, true, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("merge %s: %w", short(e.Commit), err)
	}
	clean, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	tree, err := repo.Run(ctx, "rev-parse", e.Commit+"^{tree}")
	if err != nil {
		return false, false, fmt.Errorf("tree of %s: %w", short(e.Commit), err)
	}
	return clean != strings.TrimSpace(string(tree)), false, nil
}
