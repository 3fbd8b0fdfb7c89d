// The replicas' heartbeat, and the rescue of the jobs of a process that is gone.

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Heartbeat timing: every replica records that it is alive every
// beatEvery; a replica whose last beat is older than deadAfter is gone,
// and the others make its running jobs available again. River's own
// rescuer (--rescue-after, 1 hour) stays as the last resort.
const (
	beatEvery = 10 * time.Second
	deadAfter = time.Minute
)

// runningJob is an announce or verify job River has as running.
type runningJob struct {
	id   int64
	kind string
	// by is the replica that took it last (River's client id).
	by          string
	attemptedAt time.Time
	// cancelAsked: a newer push asked River to cancel it.
	cancelAsked bool
}

// active marks a job as worked on by this process until the returned
// function is called; the heartbeat leaves such jobs alone.
func (s *server) active(id int64) func() {
	s.working.Store(id, struct{}{})
	return func() { s.working.Delete(id) }
}

func (s *server) isActive(id int64) bool {
	_, ok := s.working.Load(id)
	return ok
}

// beatInterval and deadline are the heartbeat's timing; tests shorten
// them.
func (s *server) beatInterval() time.Duration {
	if s.beatEveryTest > 0 {
		return s.beatEveryTest
	}
	return beatEvery
}

func (s *server) deadline() time.Duration {
	if s.deadAfterTest > 0 {
		return s.deadAfterTest
	}
	return deadAfter
}

// rescueOwn makes the jobs a stopped or killed process of this replica
// (the same id: see Config.Replica) left running available again, before
// River starts: a restart takes them up at once.
func (s *server) rescueOwn(ctx context.Context) error {
	jobs, err := s.q.runningJobs(ctx)
	if err != nil {
		return err
	}
	for _, r := range jobs {
		if r.by != s.replica {
			continue
		}
		if err := s.rescueJob(ctx, r, "this replica's last process stopped during the job"); err != nil {
			return err
		}
	}
	return nil
}

// rescueJob rescues one job and logs it.
func (s *server) rescueJob(ctx context.Context, r runningJob, why string) error {
	ok, err := s.q.rescue(ctx, r)
	if err != nil {
		return err
	}
	if ok {
		s.log.Info("a running job whose process is gone runs again", "job", r.id, "kind", r.kind, "was", r.by, "reason", why, "cancel-asked", r.cancelAsked)
		s.metrics.Job(r.kind, "rescued")
	}
	return nil
}

// heartbeat beats every beatInterval until the server stops, and after
// each beat rescues the jobs of replicas that are gone, and this one's
// jobs that no worker here holds (their completion was lost, say in a
// database outage).
func (s *server) heartbeat() {
	defer s.bg.Done()
	var healthySince time.Time
	t := time.NewTicker(s.beatInterval())
	defer t.Stop()
	for {
		healthySince = s.beatOnce(healthySince)
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// beatOnce is one pass of heartbeat. healthySince is when the beats
// last started to succeed: after an outage every replica's last beat is
// old, so a replica judges the others only once its own beats have
// succeeded for the whole deadline.
func (s *server) beatOnce(healthySince time.Time) time.Time {
	ctx, cancel := context.WithTimeout(s.ctx, s.beatInterval())
	defer cancel()
	now := time.Now()
	seen, err := s.q.beat(ctx, s.replica, now.Unix())
	if err != nil {
		s.log.Warn("heartbeat", "error", err)
		return time.Time{}
	}
	if healthySince.IsZero() {
		healthySince = now
	}
	jobs, err := s.q.runningJobs(ctx)
	if err != nil {
		s.log.Warn("heartbeat: list the running jobs", "error", err)
		return healthySince
	}
	dead := s.deadline()
	for _, r := range jobs {
		why := ""
		switch last, known := seen[r.by]; {
		case r.by == s.replica:
			if !s.isActive(r.id) && now.Sub(r.attemptedAt) > dead {
				why = "no worker of this replica holds it"
			}
		case now.Sub(healthySince) < dead:
		case known && now.Sub(time.Unix(last, 0)) > dead:
			why = fmt.Sprintf("replica %s has not been seen for %v", r.by, now.Sub(time.Unix(last, 0)).Round(time.Second))
		case !known && now.Sub(r.attemptedAt) > dead:
			why = fmt.Sprintf("replica %s has no heartbeat", r.by)
		}
		if why == "" {
			continue
		}
		if err := s.rescueOne(r, why); err != nil {
			s.log.Warn("heartbeat: rescue a job", "job", r.id, "error", err)
		}
	}
	return healthySince
}

// rescueTimeout bounds one rescue. It is not the beat's interval: a
// rescue that commits as that shorter deadline passes returns its error,
// and the job runs again with no line that says why.
const rescueTimeout = 30 * time.Second

// rescueOne is rescueJob within rescueTimeout.
func (s *server) rescueOne(r runningJob, why string) error {
	ctx, cancel := context.WithTimeout(s.ctx, rescueTimeout)
	defer cancel()
	return s.rescueJob(ctx, r, why)
}

func (q *riverQueue[TTx]) beat(ctx context.Context, replica string, now int64) (map[string]int64, error) {
	seen := map[string]int64{}
	err := q.ops.inTx(ctx, func(tx TTx) error {
		_, err := q.ops.exec(ctx, tx, `INSERT INTO template_verify_replicas (id, seen) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET seen = excluded.seen`, replica, now)
		if err != nil {
			return err
		}
		// A replica gone for a week is forgotten.
		if _, err := q.ops.exec(ctx, tx, `DELETE FROM template_verify_replicas WHERE seen < $1`, now-int64(deliveryTTL/time.Second)); err != nil {
			return err
		}
		return q.ops.each(ctx, tx, `SELECT id, seen FROM template_verify_replicas`, nil, func(scan func(...any) error) error {
			var id string
			var at int64
			if err := scan(&id, &at); err != nil {
				return err
			}
			seen[id] = at
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("heartbeat of %s: %w", replica, err)
	}
	return seen, nil
}

func (q *riverQueue[TTx]) runningJobs(ctx context.Context) ([]runningJob, error) {
	res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(kindAnnounce, kindVerify).States(rivertype.JobStateRunning).First(10000))
	if err != nil {
		return nil, fmt.Errorf("list the running jobs: %w", err)
	}
	var out []runningJob
	for _, row := range res.Jobs {
		r := runningJob{id: row.ID, kind: row.Kind}
		if n := len(row.AttemptedBy); n > 0 {
			r.by = row.AttemptedBy[n-1]
		}
		if row.AttemptedAt != nil {
			r.attemptedAt = *row.AttemptedAt
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(row.Metadata, &meta) == nil {
			_, r.cancelAsked = meta["cancel_attempted_at"]
		}
		out = append(out, r)
	}
	return out, nil
}

func (q *riverQueue[TTx]) rescue(ctx context.Context, r runningJob) (bool, error) {
	stmt := `UPDATE river_job SET state = 'available', scheduled_at = ` + q.nowSQL + ` WHERE id = $1 AND state = 'running'`
	if r.cancelAsked {
		// As River's rescuer does: a job whose cancel was asked is not
		// run again; the settle job concludes its runs.
		stmt = `UPDATE river_job SET state = 'cancelled', finalized_at = ` + q.nowSQL + ` WHERE id = $1 AND state = 'running'`
	}
	var n int64
	err := q.ops.inTx(ctx, func(tx TTx) error {
		var err error
		n, err = q.ops.exec(ctx, tx, stmt, r.id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("rescue job %d: %w", r.id, err)
	}
	return n > 0, nil
}

func (q *riverQueue[TTx]) finish(ctx context.Context, delivery string) error {
	err := q.ops.inTx(ctx, func(tx TTx) error {
		if _, err := q.ops.exec(ctx, tx, `DELETE FROM template_verify_jobs WHERE delivery = $1`, delivery); err != nil {
			return err
		}
		_, err := q.ops.exec(ctx, tx, `INSERT INTO template_verify_done (delivery, at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, delivery, nowUnix())
		return err
	})
	if err != nil {
		return fmt.Errorf("finish job %s: %w", delivery, err)
	}
	return nil
}

func (q *riverQueue[TTx]) finished(ctx context.Context, delivery string) (bool, error) {
	var n int64
	err := q.ops.inTx(ctx, func(tx TTx) error {
		return q.ops.query1(ctx, tx, `SELECT count(*) FROM template_verify_done WHERE delivery = $1`, []any{delivery}, &n)
	})
	if err != nil {
		return false, fmt.Errorf("read whether job %s finished: %w", delivery, err)
	}
	return n > 0, nil
}
