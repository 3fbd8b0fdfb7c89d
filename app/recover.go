package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/formula-code/template-verify/internal/githubapi"
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
	return s.appRun(in, j).OpenSessionRuns(ctx, j.HeadSHA, s.cfg.AppID)
}

// resumeRuns reads the per-check runs of the stopped attempt (j's
// CheckRunIDs) for the new attempt to complete: a restart updates the
// runs it made, and makes no second set. When they cannot be read, they
// are concluded as cancelled instead and the new attempt makes its own.
func (s *server) resumeRuns(ctx context.Context, in *githubapi.Installation, j *Job, log *slog.Logger) []publish.RunInfo {
	if len(j.CheckRunIDs) == 0 {
		return nil
	}
	var runs []publish.RunInfo
	prefix := publish.RunName("")
	for _, id := range j.CheckRunIDs {
		cr, _, err := in.Client.Checks.GetCheckRun(ctx, j.Owner, j.Repo, id)
		if err == nil && !strings.HasPrefix(cr.GetName(), prefix) {
			err = fmt.Errorf("check run %d is %q, not a run of a check", id, cr.GetName())
		}
		if err != nil {
			log.Warn("read the check runs of the stopped run; they are cancelled and the run makes new ones", "error", err)
			if err := s.closeRuns(ctx, in, j, j.CheckRunIDs, "cancelled", "The server stopped during this run",
				"The template-verify server stopped while this check ran. A new run of the same commit replaces it."); err != nil {
				log.Warn("conclude the check runs of the stopped run", "error", err)
			}
			j.CheckRunIDs = nil
			return nil
		}
		runs = append(runs, publish.RunInfo{Check: strings.TrimPrefix(cr.GetName(), prefix), ID: id, URL: cr.GetHTMLURL()})
	}
	return runs
}
