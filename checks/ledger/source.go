package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/formula-code/template-verify/internal/words"
)

// Run is one check run of a commit, as GitHub's API lists it.
type Run struct {
	Name       string
	HeadSHA    string
	Status     string // queued, in_progress, completed
	Conclusion string // success, failure, neutral, ... when completed
	URL        string
	Completed  time.Time
}

// Source gives the check runs of a commit. GitHub implements it over the
// API; Local re-verifies a merged head on this machine.
type Source interface {
	CheckRunsAt(ctx context.Context, sha string) ([]Run, error)
}

// PullHeads is an optional part of a Source: the head sha GitHub records
// for a pull request. It tells a squash merge's head, and a pull request
// verified on one head and merged with another.
type PullHeads interface {
	PullHead(ctx context.Context, number int) (string, error)
}

// Status is the ledger's verdict on one entry.
type Status string

const (
	Verified  Status = "verified"
	Red       Status = "red"
	Missing   Status = "missing"
	OtherHead Status = "other head"
	Pending   Status = "pending"
	NotPR     Status = "not a pull request"
	FromBase  Status = "from the base"
	// Edited: the merge commit carries changes that neither parent has.
	Edited Status = "edited merge"
)

// Bad reports whether the status fails the ledger.
func (s Status) Bad() bool {
	return s == Red || s == Missing || s == OtherHead || s == Pending || s == Edited
}

// Row is one entry with its verdict.
type Row struct {
	Entry
	Status Status
	// Verified is the head sha the verification ran on; Conclusion its
	// conclusion; URL the check run's page.
	Verified   string
	Conclusion string
	URL        string
	Detail     string
}

// Judge finds the verification of every entry. runName is the check run
// that counts (config.Ledger.Run, the gate by default).
func Judge(ctx context.Context, src Source, runName string, entries []Entry) ([]Row, error) {
	rows := make([]Row, 0, len(entries))
	for _, e := range entries {
		r := Row{Entry: e}
		switch e.Kind {
		case KindFromBase:
			r.Status, r.Detail = FromBase, "merges the base branch into the release branch; verified there"
		case KindDirect:
			r.Status, r.Detail = NotPR, "a commit pushed to the release branch, not a merged pull request"
		case KindMerge:
			if err := judgeHead(ctx, src, runName, &r, e.Head); err != nil {
				return nil, err
			}
			if r.Status == Verified {
				r.Detail = "a merge without a pull request number"
			} else {
				r.Status, r.Detail = NotPR, "a merge without a pull request number, and no verification of its head"
			}
		case KindPR, KindSquash:
			if err := judgePR(ctx, src, runName, &r); err != nil {
				return nil, err
			}
		}
		switch {
		case e.Edited:
			r.Status = Edited
			r.Detail = "the merge commit's tree is not the clean merge of its parents: it carries changes that no verified head has"
		case e.Conflict && r.Status == Verified:
			r.Detail = "the merge resolved conflicts, so its result differs from the verified head"
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func judgePR(ctx context.Context, src Source, runName string, r *Row) error {
	merged := r.Head
	var last string // the pull request's last head on GitHub
	if ph, ok := src.(PullHeads); ok {
		h, err := ph.PullHead(ctx, r.PR)
		if err != nil {
			return fmt.Errorf("pull request #%d: %w", r.PR, err)
		}
		last = h
	}
	if merged == "" { // squash: the merged head is the pull request's last head
		if last == "" {
			r.Status, r.Detail = Missing, "a squash merge: its head is not in the repository, and no API tells it"
			return nil
		}
		merged = last
		r.Head = last
	}
	if err := judgeHead(ctx, src, runName, r, merged); err != nil {
		return err
	}
	if r.Status != Missing || last == "" || last == merged {
		return nil
	}
	// Not verified at the merged head: was it verified at another one?
	other := Row{}
	if err := judgeHead(ctx, src, runName, &other, last); err != nil {
		return err
	}
	if other.Status != Missing {
		r.Status, r.Verified, r.Conclusion, r.URL = OtherHead, last, other.Conclusion, other.URL
		r.Detail = fmt.Sprintf("verified on %s, but %s was merged", short(last), short(merged))
	}
	return nil
}

// judgeHead looks up the run at sha; the last completed one counts.
func judgeHead(ctx context.Context, src Source, runName string, r *Row, sha string) error {
	runs, err := src.CheckRunsAt(ctx, sha)
	if err != nil {
		return fmt.Errorf("check runs of %s: %w", short(sha), err)
	}
	var best *Run
	pending := false
	for i := range runs {
		run := &runs[i]
		if run.Name != runName {
			continue
		}
		if run.Status != "completed" {
			pending = true
			continue
		}
		if best == nil || !run.Completed.Before(best.Completed) {
			best = run
		}
	}
	switch {
	case best != nil:
		r.Verified, r.Conclusion, r.URL = sha, best.Conclusion, best.URL
		if best.HeadSHA != "" && best.HeadSHA != sha {
			r.Status, r.Detail = OtherHead, fmt.Sprintf("the run was made for %s", short(best.HeadSHA))
			r.Verified = best.HeadSHA
		} else if best.Conclusion == "success" {
			r.Status = Verified
		} else {
			r.Status, r.Detail = Red, fmt.Sprintf("%s concluded %s", runName, best.Conclusion)
		}
	case pending:
		r.Status, r.Detail = Pending, fmt.Sprintf("%s has not finished on %s", runName, short(sha))
	default:
		r.Status, r.Detail = Missing, fmt.Sprintf("no %s run on %s", runName, short(sha))
	}
	return nil
}

// short is the shared short commit sha.
var short = words.Short

// Table renders rows as the ledger table: one row per entry.
func Table(rows []Row) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		pr := "-"
		if r.PR > 0 {
			pr = fmt.Sprintf("#%d", r.PR)
		}
		head := "-"
		if r.Head != "" {
			head = short(r.Head)
		}
		verified := "-"
		if r.Verified != "" {
			verified = short(r.Verified)
			if r.Conclusion != "" {
				verified += " " + r.Conclusion
			}
		}
		out = append(out, []string{pr, short(r.Commit), head, verified, string(r.Status), oneLine(r.Detail)})
	}
	return out
}

// Header is the ledger table's header.
var Header = []string{"PR", "Merge", "Merged head", "Verification", "Result", "Note"}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
