package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/publish"
	"github.com/formula-code/template-verify/report"
)

// RunName is the name of the App's own check run. It is made when a
// delivery is accepted and concludes with the verification.
const RunName = publish.AppRunName

// rerunAction is the button on the App's check run.
var rerunAction = []*github.CheckRunAction{{
	Label: "Run verification", Description: "Run template-verify on this commit", Identifier: RerunAction,
}}

// appRun writes the App's own check run of j's repository through publish.
func (s *server) appRun(in *githubapi.Installation, j *Job) publish.AppRun {
	return publish.AppRun{Client: in.Client, Owner: j.Owner, Repo: j.Repo, Now: s.cfg.Clock.Now, Actions: rerunAction}
}

// createQueued makes the App's check run as queued.
func (s *server) createQueued(ctx context.Context, in *githubapi.Installation, j *Job) (int64, error) {
	return s.appRun(in, j).CreateQueued(ctx, j.HeadSHA, j.Delivery, report.RunOutput{
		Title:   "The verification is queued",
		Summary: fmt.Sprintf("template-verify verifies %s of pull request #%d. It starts when a worker is free.", code(short(j.HeadSHA)), j.PR),
	})
}

// createNeutral makes a completed neutral run that says how to start the
// verification of a pull request whose code does not run by itself.
func (s *server) createNeutral(ctx context.Context, in *githubapi.Installation, j *Job, why string) error {
	summary := why + "\n\nFor this reason template-verify does not run the code of this pull request by itself. " +
		"A maintainer reads the change first. Then the maintainer starts the verification with a pull-request comment that says `" + CommandWord + "`. " +
		"A maintainer can also use the \"Run verification\" button of this check run."
	return s.appRun(in, j).CreateCompleted(ctx, j.HeadSHA, j.Delivery, "neutral",
		report.RunOutput{Title: "A maintainer must start the verification", Summary: summary})
}

// setRun changes the App's check run: status in_progress, or completed
// with a conclusion.
func (s *server) setRun(ctx context.Context, in *githubapi.Installation, j *Job, conclusion, title, summary string) error {
	if j.RunID == 0 {
		return nil
	}
	return s.appRun(in, j).Set(ctx, j.RunID, conclusion, report.RunOutput{Title: title, Summary: summary})
}

// closeRuns concludes every run of ids that is not completed yet.
func (s *server) closeRuns(ctx context.Context, in *githubapi.Installation, j *Job, ids []int64, conclusion, title, summary string) error {
	return s.appRun(in, j).ConcludeOpen(ctx, ids, conclusion, report.RunOutput{Title: title, Summary: summary})
}

// code is the shared inline code span.
var code = words.Code

// publishTimeout is the budget of one publishing step (one request
// series: the runs and the comment, the App's run), counted from when the
// step starts, not from when the job started.
const publishTimeout = 2 * time.Minute

// publishCtx is the context of one publishing step: it outlives a cancel
// of ctx (so that no check run stays open) and ends after the budget.
func (s *server) publishCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.publishBudget != nil {
		return s.publishBudget(ctx)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
}

// findQueued is the id of the App's run that an earlier attempt of j's
// announce job made on its head (its external id is j's delivery), or 0.
func (s *server) findQueued(ctx context.Context, in *githubapi.Installation, j *Job) (int64, error) {
	opts := &github.ListCheckRunsOptions{CheckName: github.String(RunName), ListOptions: github.ListOptions{PerPage: 100}}
	for {
		res, resp, err := in.Client.Checks.ListCheckRunsForRef(ctx, j.Owner, j.Repo, j.HeadSHA, opts)
		if err != nil {
			return 0, fmt.Errorf("list the check runs of %s: %w", short(j.HeadSHA), err)
		}
		for _, cr := range res.CheckRuns {
			if app := cr.GetApp().GetID(); app != 0 && app != s.cfg.AppID {
				continue
			}
			if cr.GetName() == RunName && cr.GetExternalID() == j.Delivery {
				return cr.GetID(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
}
