// The App's own rows beside River's jobs: the state of a job by delivery, its pruning, and the queue's depth for /metrics.

package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

func (q *riverQueue[TTx]) saveState(ctx context.Context, j *Job) error {
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", j.Delivery, err)
	}
	err = q.ops.inTx(ctx, func(tx TTx) error {
		_, err := q.ops.exec(ctx, tx, `INSERT INTO template_verify_jobs (delivery, data) VALUES ($1, $2)
			ON CONFLICT (delivery) DO UPDATE SET data = excluded.data`, j.Delivery, string(data))
		return err
	})
	if err != nil {
		return fmt.Errorf("store job %s: %w", j.Delivery, err)
	}
	return nil
}

func (q *riverQueue[TTx]) loadState(ctx context.Context, delivery string) (*Job, bool, error) {
	var data string
	err := q.ops.inTx(ctx, func(tx TTx) error {
		return q.ops.query1(ctx, tx, `SELECT data FROM template_verify_jobs WHERE delivery = $1`, []any{delivery}, &data)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read job %s: %w", delivery, err)
	}
	j := &Job{}
	if err := json.Unmarshal([]byte(data), j); err != nil {
		return nil, false, fmt.Errorf("read job %s: %w", delivery, err)
	}
	return j, true, nil
}

func (q *riverQueue[TTx]) deleteState(ctx context.Context, delivery string) error {
	err := q.ops.inTx(ctx, func(tx TTx) error {
		_, err := q.ops.exec(ctx, tx, `DELETE FROM template_verify_jobs WHERE delivery = $1`, delivery)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete job %s: %w", delivery, err)
	}
	return nil
}

func (q *riverQueue[TTx]) prune(ctx context.Context, cut time.Time) (int64, error) {
	var n int64
	err := q.ops.inTx(ctx, func(tx TTx) error {
		var err error
		if n, err = q.ops.exec(ctx, tx, `DELETE FROM template_verify_deliveries WHERE at < $1`, cut.Unix()); err != nil {
			return err
		}
		if _, err = q.ops.exec(ctx, tx, `DELETE FROM template_verify_heads WHERE at < $1`, cut.UnixNano()); err != nil {
			return err
		}
		if _, err = q.ops.exec(ctx, tx, `DELETE FROM template_verify_done WHERE at < $1`, cut.Unix()); err != nil {
			return err
		}
		_, err = q.ops.exec(ctx, tx, `DELETE FROM template_verify_cache WHERE at < $1`, cut.Unix())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("forget old deliveries: %w", err)
	}
	return n, nil
}

func (q *riverQueue[TTx]) cacheEntries(ctx context.Context, repo string, maxBytes int64) ([]cacheEntry, error) {
	var out []cacheEntry
	err := q.ops.inTx(ctx, func(tx TTx) error {
		out = out[:0]
		var total int64
		return q.ops.each(ctx, tx, `SELECT name, data FROM template_verify_cache WHERE repo = $1 ORDER BY at DESC, name`, []any{repo}, func(scan func(dest ...any) error) error {
			var e cacheEntry
			if err := scan(&e.name, &e.data); err != nil {
				return err
			}
			if total += int64(len(e.data)); total <= maxBytes {
				out = append(out, e)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read the results cache of %s: %w", repo, err)
	}
	return out, nil
}

func (q *riverQueue[TTx]) keepCache(ctx context.Context, repo string, entries []cacheEntry) error {
	err := q.ops.inTx(ctx, func(tx TTx) error {
		for _, e := range entries {
			if _, err := q.ops.exec(ctx, tx, `INSERT INTO template_verify_cache (repo, name, data, at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (repo, name) DO UPDATE SET data = excluded.data, at = excluded.at`, repo, e.name, e.data, nowUnix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("keep the results cache of %s: %w", repo, err)
	}
	return nil
}

func (q *riverQueue[TTx]) depth(ctx context.Context) (waiting, running int, err error) {
	err = q.ops.inTx(ctx, func(tx TTx) error {
		if err := q.ops.query1(ctx, tx, `SELECT count(*) FROM river_job WHERE kind = $1 AND state IN ('available', 'retryable', 'scheduled')`, []any{kindVerify}, &waiting); err != nil {
			return err
		}
		return q.ops.query1(ctx, tx, `SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'running'`, []any{kindVerify}, &running)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("queue depth: %w", err)
	}
	return waiting, running, nil
}

func (q *riverQueue[TTx]) unfinished(ctx context.Context) (int, error) {
	var n int
	err := q.ops.inTx(ctx, func(tx TTx) error {
		return q.ops.query1(ctx, tx, `SELECT count(*) FROM river_job WHERE kind IN ($1, $2)
			AND state IN ('available', 'retryable', 'scheduled', 'running', 'pending')`, []any{kindAnnounce, kindVerify}, &n)
	})
	if err != nil {
		return 0, fmt.Errorf("count the jobs: %w", err)
	}
	return n, nil
}

func (q *riverQueue[TTx]) wakePublishes(ctx context.Context) error {
	res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(kindVerify).States(rivertype.JobStateScheduled).First(10000))
	if err != nil {
		return fmt.Errorf("list the waiting verifications: %w", err)
	}
	for _, row := range res.Jobs {
		var args verifyArgs
		if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
			continue
		}
		j, ok, err := q.loadState(ctx, args.Job.Delivery)
		if err != nil {
			return err
		}
		if ok && j.State == StatePublish {
			if err := q.release(ctx, row.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// orphanWhere selects the jobs whose delivery has a state row. SQLite
// (3.38 and later, on its JSONB args) and Postgres read the same
// operators.
const orphanWhere = `EXISTS (SELECT 1 FROM template_verify_jobs s WHERE s.delivery = args->'job'->>'delivery')`

func (q *riverQueue[TTx]) orphans(ctx context.Context) ([]orphan, error) {
	params := river.NewJobListParams().Kinds(kindVerify).
		States(rivertype.JobStateCancelled, rivertype.JobStateDiscarded).
		Where(orphanWhere).First(1000)
	res, err := q.client.JobList(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("list the finished verifications the App keeps: %w", err)
	}
	var out []orphan
	for _, row := range res.Jobs {
		var args verifyArgs
		if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
			continue
		}
		o := orphan{id: row.ID, state: row.State, delivery: args.Job.Delivery, attempts: row.Attempt}
		if row.FinalizedAt != nil {
			o.finalized = *row.FinalizedAt
		}
		if n := len(row.Errors); n > 0 {
			o.lastError = row.Errors[n-1].Error
		}
		out = append(out, o)
	}
	return out, nil
}
