package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

// RunName is the name of the App's own check run. It is made when a
// delivery is accepted and concludes with the verification.
const RunName = "template-verify"

func ptr[T any](v T) *T { return &v }

// rerunAction is the button on the App's check run.
var rerunAction = []*github.CheckRunAction{{
	Label: "Run verification", Description: "Run template-verify on this commit", Identifier: RerunAction,
}}

func output(title, summary string) *github.CheckRunOutput {
	return &github.CheckRunOutput{Title: ptr(markdown.CutChars(title, report.MaxTitleChars)), Summary: ptr(markdown.CutBytes(summary, report.MaxOutputBytes, ""))}
}

// createQueued makes the App's check run as queued.
func (s *server) createQueued(ctx context.Context, in *githubapi.Installation, j *Job) (int64, error) {
	cr, _, err := in.Client.Checks.CreateCheckRun(ctx, j.Owner, j.Repo, github.CreateCheckRunOptions{
		Name: RunName, HeadSHA: j.HeadSHA, Status: ptr("queued"), ExternalID: ptr(j.Delivery),
		Output: output("The verification is queued",
			fmt.Sprintf("template-verify verifies %s of pull request #%d. It starts when a worker is free.", code(short(j.HeadSHA)), j.PR)),
	})
	if err != nil {
		return 0, fmt.Errorf("create the queued check run: %w", err)
	}
	return cr.GetID(), nil
}

// createNeutral makes a completed neutral run that says how to start the
// verification of a pull request whose code does not run by itself.
func (s *server) createNeutral(ctx context.Context, in *githubapi.Installation, j *Job, why string) error {
	summary := why + "\n\nFor this reason template-verify does not run the code of this pull request by itself. " +
		"A maintainer reads the change first. Then the maintainer starts the verification with a pull-request comment that says `" + CommandWord + "`. " +
		"A maintainer can also use the \"Run verification\" button of this check run."
	_, _, err := in.Client.Checks.CreateCheckRun(ctx, j.Owner, j.Repo, github.CreateCheckRunOptions{
		Name: RunName, HeadSHA: j.HeadSHA, Status: ptr("completed"), Conclusion: ptr("neutral"),
		ExternalID: ptr(j.Delivery), CompletedAt: &github.Timestamp{Time: s.cfg.Clock.Now()},
		Output:  output("A maintainer must start the verification", summary),
		Actions: rerunAction,
	})
	if err != nil {
		return fmt.Errorf("create the neutral check run: %w", err)
	}
	return nil
}

// setRun changes the App's check run: status in_progress, or completed
// with a conclusion.
func (s *server) setRun(ctx context.Context, in *githubapi.Installation, j *Job, conclusion, title, summary string) error {
	if j.RunID == 0 {
		return nil
	}
	opts := github.UpdateCheckRunOptions{Name: RunName, Output: output(title, summary)}
	if conclusion == "" {
		opts.Status = ptr("in_progress")
	} else {
		opts.Status, opts.Conclusion = ptr("completed"), ptr(conclusion)
		opts.CompletedAt = &github.Timestamp{Time: s.cfg.Clock.Now()}
		opts.Actions = rerunAction
	}
	if _, _, err := in.Client.Checks.UpdateCheckRun(ctx, j.Owner, j.Repo, j.RunID, opts); err != nil {
		return fmt.Errorf("update the check run %q: %w", RunName, err)
	}
	return nil
}

// closeRuns concludes every run of ids that is not completed yet.
func (s *server) closeRuns(ctx context.Context, in *githubapi.Installation, j *Job, ids []int64, conclusion, title, summary string) error {
	var first error
	for _, id := range ids {
		cr, _, err := in.Client.Checks.GetCheckRun(ctx, j.Owner, j.Repo, id)
		if err != nil {
			first = firstErr(first, fmt.Errorf("read check run %d: %w", id, err))
			continue
		}
		if cr.GetStatus() == "completed" {
			continue
		}
		_, _, err = in.Client.Checks.UpdateCheckRun(ctx, j.Owner, j.Repo, id, github.UpdateCheckRunOptions{
			Name: cr.GetName(), Status: ptr("completed"), Conclusion: ptr(conclusion),
			CompletedAt: &github.Timestamp{Time: s.cfg.Clock.Now()}, Output: output(title, summary),
		})
		if err != nil {
			first = firstErr(first, fmt.Errorf("conclude check run %d: %w", id, err))
		}
	}
	return first
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func code(s string) string { return "`" + s + "`" }

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
