package app

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// pruneWorker forgets the delivery ids, body hashes and pull-request
// heads older than deliveryTTL. It is a River periodic job: only the
// leader among the replicas of a database enqueues it, every pruneEvery
// and once when it becomes leader, so one replica prunes.
type pruneWorker struct {
	river.WorkerDefaults[pruneArgs]
	s *server
}

func (w *pruneWorker) Work(ctx context.Context, _ *river.Job[pruneArgs]) error {
	n, err := w.s.q.prune(ctx, time.Now().Add(-deliveryTTL))
	if err != nil {
		w.s.metrics.Job(kindPrune, "failure")
		return err
	}
	w.s.metrics.Job(kindPrune, "pruned")
	w.s.log.Info("old delivery ids forgotten", "count", n)
	return nil
}
