package app

import (
	"context"
	"fmt"
	"sync"
)

// supersededError is the cause of a run stopped by a newer push.
type supersededError struct{ newer string }

func (e supersededError) Error() string {
	return fmt.Sprintf("a newer push (%s) replaced this commit", short(e.newer))
}

type activeJob struct {
	job    *Job
	cancel context.CancelCauseFunc
}

// scheduler holds the jobs that wait for a worker and those that run. It
// knows the newest head of each pull request, so that a new push cancels
// the run of an older head.
type scheduler struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending []*Job
	running map[string]*activeJob // by delivery
	latest  map[string]string     // PR key -> newest head sha
	closed  bool
}

func newScheduler() *scheduler {
	q := &scheduler{running: map[string]*activeJob{}, latest: map[string]string{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// add queues j. It becomes the newest head of its pull request: a run of
// another head of the same pull request is cancelled.
func (q *scheduler) add(j *Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := j.PRKey()
	q.latest[key] = j.HeadSHA
	for _, a := range q.running {
		if a.job.PRKey() == key && a.job.HeadSHA != j.HeadSHA {
			a.cancel(supersededError{newer: j.HeadSHA})
		}
	}
	q.pending = append(q.pending, j)
	q.cond.Signal()
}

// retry queues j again without making it the newest head of its pull
// request: a stored publish (StatePublish) must not cancel a newer run.
// After close it does nothing; j stays in the store for the next start.
func (q *scheduler) retry(j *Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.pending = append(q.pending, j)
	q.cond.Signal()
}

// next waits for a job; ok is false once the scheduler is closed. Jobs
// still pending then stay in the store for the next start.
func (q *scheduler) next() (j *Job, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.pending) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	j = q.pending[0]
	q.pending = q.pending[1:]
	return j, true
}

// started records a running job; its cancel stops it.
func (q *scheduler) started(j *Job, cancel context.CancelCauseFunc) {
	q.mu.Lock()
	q.running[j.Delivery] = &activeJob{job: j, cancel: cancel}
	if _, ok := q.latest[j.PRKey()]; !ok {
		q.latest[j.PRKey()] = j.HeadSHA
	}
	q.mu.Unlock()
}

func (q *scheduler) finished(j *Job) {
	q.mu.Lock()
	delete(q.running, j.Delivery)
	q.mu.Unlock()
}

// superseded returns the newer head of j's pull request, if there is one.
func (q *scheduler) superseded(j *Job) (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l, ok := q.latest[j.PRKey()]
	return l, ok && l != j.HeadSHA
}

// depth returns the number of waiting and running jobs.
func (q *scheduler) depth() (queued, running int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending), len(q.running)
}

func (q *scheduler) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
