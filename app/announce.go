package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// announceTries is how often the announcer tries one job before it gives
// up on it, after an error that is not the database's (GitHub's, say).
// A database error is tried again for the retry window instead
// (retryStore), and after it River runs the job again later.
const announceTries = 3

// announceMaxAttempts is River's attempt limit of an announce job: the
// runs a database outage longer than the retry window, or a process
// that died, cost it.
const announceMaxAttempts = 10

// announceWorker is River's worker of accepted deliveries.
type announceWorker struct {
	river.WorkerDefaults[announceArgs]
	s *server
}

// Work announces one accepted delivery. It returns nil also when it gave
// up (logged): a job that needs no run, or whose pull request cannot be
// read, is done. River runs it again when the process died during it,
// and when the database did not answer for the whole retry window (the
// error is returned).
func (w *announceWorker) Work(ctx context.Context, job *river.Job[announceArgs]) error {
	done := w.s.active(job.ID)
	defer done()
	j := job.Args.Job
	j.retried = job.Attempt > 1
	return w.s.announceJob(ctx, &j)
}

// announceJob finds the pull request of an accepted job, decides whether
// its code may run, and makes the App's check run: queued, or neutral
// with the way to start the run.
func (s *server) announceJob(ctx context.Context, j *Job) error {
	log := s.log.With("delivery", j.Delivery)
	ctx, cancel := context.WithTimeout(ctx, publishTimeout+s.storeWindow())
	defer cancel()
	var lastErr error
	for try := 1; try <= announceTries; try++ {
		lastErr = s.prepare(ctx, j, log)
		if lastErr == nil || errors.Is(lastErr, errDrop) || isStoreError(lastErr) || ctx.Err() != nil {
			break
		}
		log.Warn("prepare the job; trying again", append(jobAttrs(j), "error", lastErr, "try", try)...)
		if s.cfg.Clock.Sleep(ctx, time.Duration(try)*2*time.Second) != nil {
			break
		}
	}
	s.metrics.Job(kindAnnounce, outcomeOf(lastErr))
	switch {
	case lastErr == nil:
	case errors.Is(lastErr, errDrop):
		log.Info("delivery needs no run", append(jobAttrs(j), "reason", lastErr.Error())...)
	case isStoreError(lastErr):
		log.Error("prepare the job: the database did not answer; the queue runs it again later", append(jobAttrs(j), "error", lastErr)...)
		return lastErr
	default:
		log.Error("prepare the job; giving up", append(jobAttrs(j), "error", lastErr)...)
	}
	return nil
}

// outcomeOf is the metric outcome of an announcement.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return "queued"
	case errors.Is(err, errDrop):
		return "dropped"
	}
	return "failure"
}

// errDrop marks a job that needs no run.
var errDrop = errors.New("no run needed")

func drop(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errDrop, fmt.Sprintf(format, args...))
}

// forget records that the verification of j is finished and deletes
// its state (see queue.finish), through a database outage too.
func (s *server) forget(j *Job) {
	err := s.retryStore(context.WithoutCancel(s.ctx), "forget the job", func(ctx context.Context) error { return s.q.finish(ctx, j.Delivery) })
	if err != nil {
		s.log.Error("delete the job", "delivery", j.Delivery, "error", err)
	}
}

// prepare does the work of announceJob once.
func (s *server) prepare(ctx context.Context, j *Job, log *slog.Logger) error {
	in, err := s.clients.Installation(j.Installation)
	if err != nil {
		return err
	}
	if j.retried {
		if done, err := s.announcedBefore(ctx, j); done || err != nil {
			return err
		}
	}
	if err := s.resolvePull(ctx, in, j); err != nil {
		return err
	}
	trusted, why, err := s.trust(ctx, in, j)
	if err != nil {
		return err
	}
	if !trusted || j.Request {
		// No second run, and no second "waits for a maintainer" run,
		// while a job of the head waits or runs.
		var busy bool
		err := s.retryStore(ctx, "read the head's job", func(ctx context.Context) (err error) { busy, err = s.q.headBusy(ctx, j); return err })
		if err != nil || busy {
			if err != nil {
				return err
			}
			return drop("%s for #%d: a job of this head waits or runs", short(j.HeadSHA), j.PR)
		}
	}
	if !trusted {
		if j.Event == "issue_comment" {
			return drop("%s asked for a run without write access", j.Sender)
		}
		if err := s.createNeutral(ctx, in, j, why); err != nil {
			return err
		}
		log.Info("the pull request waits for a maintainer", append(jobAttrs(j), "reason", why)...)
		return drop("waits for a maintainer")
	}
	if j.RiverID == 0 {
		if err := s.stillHead(ctx, in, j); err != nil {
			return err
		}
		// River's unique jobs keep one verification per head, across
		// replicas and restarts; the job waits, scheduled, until its
		// check run is there.
		var id int64
		var older []int64
		err := s.retryStore(ctx, "queue the verification", func(ctx context.Context) (err error) {
			id, older, err = s.q.enqueueVerify(ctx, j)
			if errors.Is(err, errDuplicate) {
				return finalError{err}
			}
			return err
		})
		if err != nil {
			if errors.Is(err, errSameHead) || errors.Is(err, errOlderHead) {
				return drop("%s for #%d: %v", short(j.HeadSHA), j.PR, err)
			}
			return err
		}
		j.RiverID = id
		// A new push cancels the jobs of the older heads, on whichever
		// replica runs them.
		for _, o := range older {
			s.cancelOlder(ctx, in, o, j.HeadSHA, log)
		}
	}
	if j.RunID == 0 && j.retried {
		// An earlier attempt of this job may have made the run and
		// died before it stored its id.
		id, err := s.findQueued(ctx, in, j)
		if err != nil {
			return err
		}
		j.RunID = id
	}
	if j.RunID == 0 {
		id, err := s.createQueued(ctx, in, j)
		if err != nil {
			return err
		}
		j.RunID = id
	}
	j.State = StateQueued
	if err := s.saveStateRetry(ctx, j); err != nil {
		return err
	}
	if err := s.retryStore(ctx, "make the verification available", func(ctx context.Context) error { return s.q.release(ctx, j.RiverID) }); err != nil {
		return err
	}
	log.Info("job queued", append(jobAttrs(j), "job", j.RiverID)...)
	return nil
}

// stillHead drops a delivery whose head is not the newest head queued
// for its pull request and is no longer the pull request's head on
// GitHub: a late delivery or redelivery of an older push. Without it a
// delivery accepted later counts as the newer push: it cancels the job of
// the pull request's real head and queues the older head again, and the
// next delivery of the real head queues that once more, a second App run
// on each (scripts/replicas.sh, where a delivery the killed replica did
// not answer was redelivered after the final head's).
func (s *server) stillHead(ctx context.Context, in *githubapi.Installation, j *Job) error {
	var latest string
	err := s.retryStore(ctx, "read the newest head", func(ctx context.Context) (err error) {
		latest, err = s.q.latestHead(ctx, prKeyOf(j))
		return err
	})
	if err != nil || latest == "" || strings.EqualFold(latest, j.HeadSHA) {
		return err
	}
	p, _, err := in.Client.PullRequests.Get(ctx, j.Owner, j.Repo, j.PR)
	if err != nil {
		return fmt.Errorf("read pull request #%d: %w", j.PR, err)
	}
	if head := p.GetHead().GetSHA(); !strings.EqualFold(head, j.HeadSHA) {
		return drop("%s is no longer the head of #%d (%s is)", short(j.HeadSHA), j.PR, short(head))
	}
	return nil
}

// resolvePull finds the pull request by head sha when the event has none
// (fork pull requests in check_suite and check_run events), and reads it
// when the event lacks its head, base or author.
func (s *server) resolvePull(ctx context.Context, in *githubapi.Installation, j *Job) error {
	if j.PR == 0 {
		prs, err := githubapi.PullsWithHead(ctx, in.Client, j.Owner, j.Repo, j.HeadSHA)
		if err != nil {
			return err
		}
		if len(prs) > 0 {
			j.PR = prs[0].GetNumber()
		}
		if j.PR == 0 {
			return drop("no open pull request has head %s", short(j.HeadSHA))
		}
	}
	if !j.needsPull() {
		return nil
	}
	p, _, err := in.Client.PullRequests.Get(ctx, j.Owner, j.Repo, j.PR)
	if err != nil {
		return fmt.Errorf("read pull request #%d: %w", j.PR, err)
	}
	if p.GetState() == "closed" {
		return drop("pull request #%d is closed", j.PR)
	}
	head := p.GetHead().GetSHA()
	if j.HeadSHA != "" && j.HeadSHA != head {
		return drop("%s is no longer the head of #%d", short(j.HeadSHA), j.PR)
	}
	j.HeadSHA, j.BaseSHA, j.BaseRef, j.HeadRef = head, p.GetBase().GetSHA(), p.GetBase().GetRef(), p.GetHead().GetRef()
	j.Author, j.Body = p.GetUser().GetLogin(), p.GetBody()
	j.Fork = githubapi.IsFork(p.GetBase().GetRepo(), p.GetHead().GetRepo())
	return nil
}

// trust decides whether the code of the pull request may run: when a
// person with write access asked for the run, or when the pull request is
// not from a fork and its author has write access.
func (s *server) trust(ctx context.Context, in *githubapi.Installation, j *Job) (bool, string, error) {
	if j.Request && j.Sender != "" {
		ok, err := s.canWrite(ctx, in, j, j.Sender)
		if err != nil || ok {
			return ok, "", err
		}
	}
	if j.Fork {
		return false, "This pull request comes from a fork.", nil
	}
	ok, err := s.canWrite(ctx, in, j, j.Author)
	if err != nil || ok {
		return ok, "", err
	}
	return false, fmt.Sprintf("The author %s has no write access to this repository.", code(j.Author)), nil
}

func (s *server) canWrite(ctx context.Context, in *githubapi.Installation, j *Job, user string) (bool, error) {
	if user == "" {
		return false, nil
	}
	p, resp, err := in.Client.Repositories.GetPermissionLevel(ctx, j.Owner, j.Repo, user)
	if err != nil {
		if resp != nil && resp.StatusCode == 404 {
			return false, nil
		}
		return false, fmt.Errorf("read the permission of %s: %w", user, err)
	}
	switch p.GetPermission() {
	case "admin", "maintain", "write":
		return true, nil
	}
	return false, nil
}

// cancelOlder cancels the job of an older head. A job that runs is
// stopped by River on its replica, whose worker concludes its check runs;
// a job that waited is cancelled at once, so its queued check run is
// concluded here.
func (s *server) cancelOlder(ctx context.Context, in *githubapi.Installation, id int64, newer string, log *slog.Logger) {
	old, waited, err := s.q.cancel(ctx, id)
	if err != nil {
		log.Warn("cancel the job of an older head", "job", id, "error", err)
		return
	}
	if !waited || old == "" {
		return
	}
	oj, ok, err := s.q.loadState(ctx, old)
	if err != nil || !ok {
		return
	}
	pubCtx, pubCancel := s.publishCtx(ctx)
	defer pubCancel()
	s.cancelled(pubCtx, in, oj, nil, newer, log.With("cancelled", old))
	s.metrics.Job(kindVerify, "superseded")
}

// announcedBefore finishes an announce job that River runs again (its
// process died, or its completion was lost) when an earlier attempt got
// far: it drops the job when the verification finished or runs, and makes
// it available when it was queued but not released. true: nothing more
// to do (the error says why when there is one).
func (s *server) announcedBefore(ctx context.Context, j *Job) (bool, error) {
	var st *Job
	var ok, finished bool
	err := s.retryStore(ctx, "read the job", func(ctx context.Context) (err error) {
		if finished, err = s.q.finished(ctx, j.Delivery); err != nil || finished {
			return err
		}
		st, ok, err = s.q.loadState(ctx, j.Delivery)
		return err
	})
	switch {
	case err != nil:
		return true, err
	case finished:
		return true, drop("the verification of %s finished", short(j.HeadSHA))
	case !ok:
		return false, nil
	case st.State != StateQueued || st.RiverID == 0:
		return true, drop("the verification of %s runs", short(st.HeadSHA))
	}
	*j = *st
	j.retried = true
	if err := s.retryStore(ctx, "make the verification available", func(ctx context.Context) error { return s.q.release(ctx, j.RiverID) }); err != nil {
		return true, err
	}
	return true, nil
}
