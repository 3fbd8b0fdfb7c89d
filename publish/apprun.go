package publish

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/report"
)

// AppRunName is the name of the App's own check run: made when a delivery
// is accepted, concluded with the verification. The per-check runs of a
// session are named by RunName.
const AppRunName = "template-verify"

// AppRun writes the App's own check run and concludes the runs a stopped
// or superseded verification left open. Every GitHub write of the App goes
// through this package: AppRun for its own run, Session for the per-check
// runs and the comment. The App chooses the words; the outputs are cut to
// GitHub's limits by report.Aborted.
type AppRun struct {
	Client      *github.Client
	Owner, Repo string
	// Now stamps completed_at.
	Now func() time.Time
	// Actions are the buttons of a completed run.
	Actions []*github.CheckRunAction
}

func (a AppRun) output(out report.RunOutput) *github.CheckRunOutput {
	out = report.Aborted(out.Title, out.Summary)
	return &github.CheckRunOutput{Title: &out.Title, Summary: &out.Summary}
}

func (a AppRun) now() *github.Timestamp { return &github.Timestamp{Time: a.Now()} }

// CreateQueued makes the App's run on head as queued and returns its id.
func (a AppRun) CreateQueued(ctx context.Context, head, externalID string, out report.RunOutput) (int64, error) {
	cr, _, err := a.Client.Checks.CreateCheckRun(ctx, a.Owner, a.Repo, github.CreateCheckRunOptions{
		Name: AppRunName, HeadSHA: head, Status: ptr("queued"), ExternalID: ptr(externalID),
		Output: a.output(out),
	})
	if err != nil {
		return 0, fmt.Errorf("create the queued check run: %w", err)
	}
	return cr.GetID(), nil
}

// CreateCompleted makes the App's run on head as completed with a
// conclusion (neutral: the verification waits for a maintainer).
func (a AppRun) CreateCompleted(ctx context.Context, head, externalID, conclusion string, out report.RunOutput) error {
	_, _, err := a.Client.Checks.CreateCheckRun(ctx, a.Owner, a.Repo, github.CreateCheckRunOptions{
		Name: AppRunName, HeadSHA: head, Status: ptr("completed"), Conclusion: ptr(conclusion),
		ExternalID: ptr(externalID), CompletedAt: a.now(), Output: a.output(out), Actions: a.Actions,
	})
	if err != nil {
		return fmt.Errorf("create the %s check run: %w", conclusion, err)
	}
	return nil
}

// Set changes the App's run id: in progress when conclusion is empty,
// else completed with it.
func (a AppRun) Set(ctx context.Context, id int64, conclusion string, out report.RunOutput) error {
	opts := github.UpdateCheckRunOptions{Name: AppRunName, Output: a.output(out)}
	if conclusion == "" {
		opts.Status = ptr("in_progress")
	} else {
		opts.Status, opts.Conclusion = ptr("completed"), ptr(conclusion)
		opts.CompletedAt = a.now()
		opts.Actions = a.Actions
	}
	if _, _, err := a.Client.Checks.UpdateCheckRun(ctx, a.Owner, a.Repo, id, opts); err != nil {
		return fmt.Errorf("update the check run %q: %w", AppRunName, err)
	}
	return nil
}

// ConcludeOpen concludes every run of ids that is not completed yet, and
// returns the first error after trying them all.
func (a AppRun) ConcludeOpen(ctx context.Context, ids []int64, conclusion string, out report.RunOutput) error {
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, id := range ids {
		cr, _, err := a.Client.Checks.GetCheckRun(ctx, a.Owner, a.Repo, id)
		if err != nil {
			note(fmt.Errorf("read check run %d: %w", id, err))
			continue
		}
		if cr.GetStatus() == "completed" {
			continue
		}
		_, _, err = a.Client.Checks.UpdateCheckRun(ctx, a.Owner, a.Repo, id, github.UpdateCheckRunOptions{
			Name: cr.GetName(), Status: ptr("completed"), Conclusion: ptr(conclusion),
			CompletedAt: a.now(), Output: a.output(out),
		})
		if err != nil {
			note(fmt.Errorf("conclude check run %d: %w", id, err))
		}
	}
	return first
}

// OpenSessionRuns lists the per-check runs ("template-verify / …") on head
// that are not completed, of the App appID (runs of other Apps are left
// alone).
func (a AppRun) OpenSessionRuns(ctx context.Context, head string, appID int64) ([]int64, error) {
	prefix := RunName("")
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var ids []int64
	for {
		res, resp, err := a.Client.Checks.ListCheckRunsForRef(ctx, a.Owner, a.Repo, head, opts)
		if err != nil {
			return nil, fmt.Errorf("list the check runs of %s: %w", head, err)
		}
		for _, cr := range res.CheckRuns {
			if app := cr.GetApp().GetID(); app != 0 && app != appID {
				continue
			}
			if strings.HasPrefix(cr.GetName(), prefix) && cr.GetStatus() != "completed" {
				ids = append(ids, cr.GetID())
			}
		}
		if resp.NextPage == 0 {
			return ids, nil
		}
		opts.Page = resp.NextPage
	}
}
