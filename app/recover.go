package app

import (
	"context"
	"slices"
	"time"
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
	return s.appRun(in, j).OpenSessionRuns(ctx, j.HeadSHA, s.cfg.AppID)
}
