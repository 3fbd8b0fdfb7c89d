package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/publish"
)

// recoverTimeout bounds the look-up of the runs a stopped run left open.
const recoverTimeout = 30 * time.Second

// recoverRuns adds to a job that was running when the process stopped the
// per-check runs on its head that are still open. A kill between creating
// the runs and storing their ids leaves them out of the store; one job
// holds a head (see Store.Claim), so the open runs of the head are its
// own. The worker then concludes them before it runs the job again.
func (s *server) recoverRuns(ctx context.Context, j *Job) {
	ctx, cancel := context.WithTimeout(ctx, recoverTimeout)
	defer cancel()
	ids, err := s.openRunsOf(ctx, j)
	if err != nil {
		s.log.Warn("find the check runs a stopped run left open", append(jobAttrs(j), "delivery", j.Delivery, "error", err)...)
		return
	}
	for _, id := range ids {
		if id != j.RunID && !slices.Contains(j.CheckRunIDs, id) {
			j.CheckRunIDs = append(j.CheckRunIDs, id)
		}
	}
}

// openRunsOf lists the per-check runs ("template-verify / ...") of this
// App on j's head that are not completed.
func (s *server) openRunsOf(ctx context.Context, j *Job) ([]int64, error) {
	in, err := s.clients.Installation(j.Installation)
	if err != nil {
		return nil, err
	}
	prefix := publish.RunName("")
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var ids []int64
	for {
		res, resp, err := in.Client.Checks.ListCheckRunsForRef(ctx, j.Owner, j.Repo, j.HeadSHA, opts)
		if err != nil {
			return nil, fmt.Errorf("list the check runs of %s: %w", short(j.HeadSHA), err)
		}
		for _, cr := range res.CheckRuns {
			if app := cr.GetApp().GetID(); app != 0 && app != s.cfg.AppID {
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
