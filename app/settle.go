// The periodic job that concludes the check runs of verifications River finished without running them to the end.

package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// kindSettle is the periodic job of settle.
const kindSettle = "template_verify_settle"

// settleArgs is the periodic job that concludes the runs of finished
// verification jobs whose worker never concluded them.
type settleArgs struct{}

func (settleArgs) Kind() string { return kindSettle }

// settleWorker runs settle. It is a River periodic job: only the leader
// enqueues it, every settleEvery and once when it becomes leader.
type settleWorker struct {
	river.WorkerDefaults[settleArgs]
	s *server
}

func (w *settleWorker) Work(ctx context.Context, _ *river.Job[settleArgs]) error {
	return w.s.settle(ctx)
}

// orphan is a verification job that River finished (cancelled or
// discarded) while the App still keeps its state: no worker concluded
// its check runs. A worker that concludes a job forgets its state before
// River finishes it.
type orphan struct {
	id        int64
	state     rivertype.JobState
	delivery  string
	finalized time.Time
	attempts  int
	lastError string
}

// settleEvery is how often the leader looks for orphans: half the rescue
// time (River cancels a stuck job whose cancel was asked once it ran that
// long), at most every 5 minutes, at least every second.
func (s *server) settleEvery() time.Duration {
	return min(max(s.rescueAfter()/2, time.Second), 5*time.Minute)
}

// settleMargin is how long after River finished a job its orphan is
// left alone: the announcer that cancelled a waiting job concludes its
// runs itself within one publishing step (cancelOlder).
func (s *server) settleMargin() time.Duration {
	return min(publishTimeout, s.rescueAfter())
}

// settle concludes the check runs of the orphans: the job of a head a
// newer push replaced, cancelled on a replica that died before its
// worker concluded the runs (River's rescuer cancels such a job instead
// of running it again), or cancelled while it waited by an announcer
// that died before it concluded the runs; and a job River discarded
// after its attempt limit. A run it cannot conclude now (GitHub does not
// answer) keeps its state, and the next pass tries again.
func (s *server) settle(ctx context.Context) error {
	orphans, err := s.q.orphans(ctx)
	if err != nil {
		s.metrics.Job(kindSettle, "failure")
		return err
	}
	before := time.Now().Add(-s.settleMargin())
	for _, o := range orphans {
		if o.finalized.After(before) {
			continue
		}
		j, ok, err := s.q.loadState(ctx, o.delivery)
		if err != nil {
			s.metrics.Job(kindSettle, "failure")
			return err
		}
		if !ok {
			continue
		}
		j.RiverID = o.id
		if err := s.settleOne(ctx, j, o); err != nil {
			s.log.Warn("conclude the check runs of a finished job", append(jobAttrs(j), "delivery", j.Delivery, "job", o.id, "error", err)...)
			s.metrics.Job(kindSettle, "failure")
			continue
		}
		s.metrics.Job(kindSettle, "settled")
	}
	return nil
}

// settleOne concludes the runs of one orphan and forgets its state.
func (s *server) settleOne(ctx context.Context, j *Job, o orphan) error {
	log := s.log.With(append([]any{"delivery", j.Delivery, "job", o.id, "river_state", string(o.state)}, jobAttrs(j)...)...)
	in, err := s.clients.Installation(j.Installation)
	if err != nil {
		return err
	}
	// The per-check runs a killed worker made and did not store.
	s.recoverRuns(ctx, j)
	concl, title := "cancelled", "Cancelled: a newer push replaced this commit"
	var why string
	newer, superseded := s.superseded(ctx, j)
	switch {
	case o.state == rivertype.JobStateDiscarded:
		concl, title = "failure", "The verification stopped"
		why = fmt.Sprintf("template-verify could not finish the verification of %s: the queue gave the job up after %d attempts (the last: %s). "+
			"A new push, or a maintainer's `%s` comment, starts a new run.", code(short(j.HeadSHA)), o.attempts, o.lastError, CommandWord)
	case superseded:
		why = supersededWhy(j, newer)
	default:
		title = "Cancelled"
		why = fmt.Sprintf("The job of this run was cancelled before it finished, so template-verify stopped it. "+
			"A new push, or a maintainer's `%s` comment, starts a new run.", CommandWord)
	}
	pubCtx, pubCancel := s.publishCtx(ctx)
	defer pubCancel()
	var errs []error
	if len(j.CheckRunIDs) > 0 {
		errs = append(errs, s.closeRuns(pubCtx, in, j, j.CheckRunIDs, concl, title, why))
	}
	errs = append(errs, s.setRun(pubCtx, in, j, concl, title, why))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.removeWork(j)
	s.forget(j)
	if superseded && o.state != rivertype.JobStateDiscarded {
		s.metrics.Job(kindVerify, "superseded")
	} else {
		s.metrics.Job(kindVerify, concl)
	}
	log.Info("the runs of a job River finished are concluded", "conclusion", concl, "newer", newer)
	return nil
}
