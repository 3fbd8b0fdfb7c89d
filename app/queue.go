package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
)

// Job kinds and queues of River.
const (
	kindAnnounce  = "template_verify_announce"
	kindVerify    = "template_verify_verify"
	kindPrune     = "template_verify_prune"
	queueAnnounce = "announce"
	queueVerify   = "verify"
)

// announceArgs is an accepted delivery: the announcer finds its pull
// request, decides whether its code may run and queues the verification.
type announceArgs struct {
	Job Job `json:"job"`
}

func (announceArgs) Kind() string { return kindAnnounce }

// verifyArgs is one verification. River keeps one job per Head (unique
// jobs): a second delivery of the same pull-request head is skipped while
// the first waits, runs or is remembered as completed. A person's request
// for a new run carries its delivery in Request, so that it may run a
// head again.
type verifyArgs struct {
	Job     Job    `json:"job"`
	Head    string `json:"head" river:"unique"`
	Request string `json:"request,omitempty" river:"unique"`
}

func (verifyArgs) Kind() string { return kindVerify }

// pruneArgs is the periodic job that forgets old delivery ids.
type pruneArgs struct{}

func (pruneArgs) Kind() string { return kindPrune }

// errOlderHead is returned by enqueueVerify when a head of the pull
// request whose delivery came later is queued already. It wraps
// errDuplicate.
var errOlderHead = fmt.Errorf("%w: a newer push of the pull request is queued", errDuplicate)

// announceHold is how long a verification job waits, scheduled, for its
// announcer to make its queued check run before the announcer makes it
// available. When the announcer's process dies in between, the job runs
// after the hold without that run.
const announceHold = 10 * time.Minute

// queue is the App's view of River and its own tables, for either driver.
type queue interface {
	// admit records the delivery keys (errDuplicate when one is known)
	// and, when j is not nil, inserts its announce job, in one
	// transaction. A non-request job whose head is already queued gets
	// errSameHead.
	admit(ctx context.Context, keys []string, j *Job) error
	// enqueueVerify inserts j's verification, scheduled (see
	// announceHold), makes it the newest head of its pull request, and
	// returns the job id and the jobs of the pull request's older heads.
	// errSameHead: the head has a job.
	enqueueVerify(ctx context.Context, j *Job) (id int64, older []int64, err error)
	// release makes a scheduled verification available now.
	release(ctx context.Context, id int64) error
	// cancel asks River to cancel a job, also one that runs on another
	// replica. It returns the job's delivery and whether the job was
	// waiting (then nothing runs it again: the caller concludes it).
	cancel(ctx context.Context, id int64) (delivery string, waited bool, err error)
	// headBusy says whether a job of j's head waits or runs.
	headBusy(ctx context.Context, j *Job) (bool, error)
	// latestHead is the newest queued head of a pull request ("" none).
	latestHead(ctx context.Context, prKey string) (string, error)
	saveState(ctx context.Context, j *Job) error
	loadState(ctx context.Context, delivery string) (*Job, bool, error)
	deleteState(ctx context.Context, delivery string) error
	// prune forgets delivery ids, pull-request heads and cache entries
	// older than cut.
	prune(ctx context.Context, cut time.Time) (int64, error)
	// cacheEntries are the newest kept cache entries of repo, at most
	// maxBytes of them.
	cacheEntries(ctx context.Context, repo string, maxBytes int64) ([]cacheEntry, error)
	// keepCache stores entries of repo, an entry of the same name
	// replaced.
	keepCache(ctx context.Context, repo string, entries []cacheEntry) error
	// depth counts the verifications that wait and that run, over all
	// replicas.
	depth(ctx context.Context) (waiting, running int, err error)
	// wakePublishes makes the verifications that wait to publish again
	// available now: a new process may publish what the last could not.
	wakePublishes(ctx context.Context) error
	// orphans lists the verification jobs River cancelled or discarded
	// whose state the App keeps (see orphan).
	orphans(ctx context.Context) ([]orphan, error)
	// unfinished counts the announce and verify jobs that wait or run.
	unfinished(ctx context.Context) (int, error)
	// finish records that the verification of delivery is finished and
	// deletes its state, in one transaction.
	finish(ctx context.Context, delivery string) error
	// finished says whether finish recorded delivery.
	finished(ctx context.Context, delivery string) (bool, error)
	// beat records that replica is alive now (Unix seconds) and returns
	// every replica's last beat.
	beat(ctx context.Context, replica string, now int64) (map[string]int64, error)
	// runningJobs lists the announce and verify jobs River has as
	// running, on any replica.
	runningJobs(ctx context.Context) ([]runningJob, error)
	// rescue makes a running job whose process is gone available again,
	// or cancelled when its cancel was asked; false when the job no
	// longer runs (someone else rescued or finished it).
	rescue(ctx context.Context, r runningJob) (bool, error)
	migrate(ctx context.Context) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
	close()
	clientID() string
}

// riverQueue is queue for one River driver.
type riverQueue[TTx any] struct {
	client *river.Client[TTx]
	ops    sqlOps[TTx]
	mig    func(ctx context.Context) error
	s      *server
	// admits writes the webhook's deliveries a batch at a time, on
	// SQLite; nil on Postgres, where each admit is its own transaction.
	admits *admitter
	// nowSQL is the driver's SQL for the current time in River's
	// columns.
	nowSQL string
}

// newRiverQueue is the queue of one driver. With batchAdmits (SQLite)
// the deliveries are written by an admitter: SQLite has one connection,
// so the admits of a burst ran one after another anyway, each with its
// own commit; in one transaction the last of 50 waits for one commit, not
// 50. On Postgres the pool runs the admits side by side, and one writer
// would put them in a line: measured, that made the answer slower
// (docs/replicas.md).
func newRiverQueue[TTx any](s *server, client *river.Client[TTx], ops sqlOps[TTx], mig func(ctx context.Context) error, batchAdmits bool) *riverQueue[TTx] {
	q := &riverQueue[TTx]{client: client, ops: ops, s: s, mig: mig, nowSQL: "now()"}
	if batchAdmits {
		q.admits = newAdmitter(q.writeAdmits)
		q.nowSQL = "datetime('now', 'subsec')"
	}
	return q
}

// riverConfig is the River configuration of the server: the announce
// and verify queues, the periodic prune on the leader, and RescueAfter as
// both the job timeout and RescueStuckJobsAfter, for the jobs of a
// process that died.
func (s *server) riverConfig(pollOnly bool) *river.Config {
	workers := river.NewWorkers()
	river.AddWorker(workers, &announceWorker{s: s})
	river.AddWorker(workers, &verifyWorker{s: s})
	river.AddWorker(workers, &pruneWorker{s: s})
	river.AddWorker(workers, &settleWorker{s: s})
	rescue := s.rescueAfter()
	cfg := &river.Config{
		ID:     s.replica,
		Logger: s.log.With("component", "river"),
		Queues: map[string]river.QueueConfig{
			queueAnnounce:      {MaxWorkers: s.cfg.Announcers},
			queueVerify:        {MaxWorkers: s.cfg.Workers},
			river.QueueDefault: {MaxWorkers: 1},
		},
		Workers: workers,
		// River rescues only jobs of a worker with a timeout, once they
		// ran longer than it: a verification gets RescueAfter, then its
		// run stops and concludes as failure with that reason.
		JobTimeout:                  rescue,
		RescueStuckJobsAfter:        rescue,
		CompletedJobRetentionPeriod: deliveryTTL,
		// SQLite has no LISTEN/NOTIFY: River polls for new jobs and for
		// cancels (JobCancel of a job that runs here), every 2 s.
		PollOnly:          pollOnly,
		FetchCooldown:     20 * time.Millisecond,
		FetchPollInterval: s.cfg.pollInterval(),
		PeriodicJobs: []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(s.cfg.pruneEvery()), func() (river.JobArgs, *river.InsertOpts) {
				return pruneArgs{}, nil
			}, &river.PeriodicJobOpts{RunOnStart: true, ID: kindPrune}),
			river.NewPeriodicJob(river.PeriodicInterval(s.settleEvery()), func() (river.JobArgs, *river.InsertOpts) {
				return settleArgs{}, &river.InsertOpts{MaxAttempts: 1}
			}, &river.PeriodicJobOpts{RunOnStart: true, ID: kindSettle}),
		},
	}
	return cfg
}

// openQueue opens the database of the configuration and River on it.
func (s *server) openQueue(ctx context.Context) (queue, error) {
	if isPostgresURL(s.cfg.DatabaseURL) {
		pool, ops, err := openPostgres(ctx, s.cfg.DatabaseURL)
		if err != nil {
			return nil, err
		}
		client, err := river.NewClient(riverpgxv5.New(pool), s.riverConfig(false))
		if err != nil {
			ops.close()
			return nil, fmt.Errorf("the queue (River): %w", err)
		}
		return newRiverQueue[pgx.Tx](s, client, ops, func(ctx context.Context) error { return migratePostgres(ctx, pool, ops) }, false), nil
	}
	if s.cfg.DatabaseURL != "" {
		return nil, errors.New("the database URL must start with postgres:// (or leave it empty for the SQLite file in the data folder)")
	}
	db, ops, err := openSQLite(s.cfg)
	if err != nil {
		return nil, err
	}
	client, err := river.NewClient(riversqlite.New(db), s.riverConfig(true))
	if err != nil {
		ops.close()
		return nil, fmt.Errorf("the queue (River): %w", err)
	}
	return newRiverQueue[*sql.Tx](s, client, ops, func(ctx context.Context) error { return migrateSQLite(ctx, db, ops) }, true), nil
}

func nowUnix() int64 { return time.Now().Unix() }

// prKeyOf names the pull request of j (GitHub's names ignore case).
func prKeyOf(j *Job) string {
	return strings.ToLower(j.FullName()) + "#" + strconv.Itoa(j.PR)
}

// headOf names the head of j; "" while the announcer has not found it.
func headOf(j *Job) string {
	if j == nil || j.PR <= 0 || j.HeadSHA == "" || j.Owner == "" || j.Repo == "" {
		return ""
	}
	return prKeyOf(j) + "@" + strings.ToLower(j.HeadSHA)
}

func (q *riverQueue[TTx]) clientID() string { return q.client.ID() }

func (q *riverQueue[TTx]) migrate(ctx context.Context) error { return q.mig(ctx) }

func (q *riverQueue[TTx]) start(ctx context.Context) error {
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("start River: %w", err)
	}
	return nil
}

func (q *riverQueue[TTx]) stop(ctx context.Context) error {
	if err := q.client.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stop River: %w", err)
	}
	return nil
}

func (q *riverQueue[TTx]) close() {
	if q.admits != nil {
		q.admits.close()
	}
	q.ops.close()
}

func (q *riverQueue[TTx]) admit(ctx context.Context, keys []string, j *Job) error {
	if q.admits != nil {
		return q.admits.admit(ctx, keys, j)
	}
	results, err := q.admitTx(ctx, []*admitRequest{{ctx: ctx, keys: keys, job: j}})
	if err != nil {
		return fmt.Errorf("store delivery %s: %w", j.deliveryOr(keys), err)
	}
	return results[0]
}

// writeAdmits writes a batch of deliveries in one transaction and
// answers each. When the transaction fails, every delivery of the batch
// gets the error: its sender is answered 503 and delivers it again.
func (q *riverQueue[TTx]) writeAdmits(batch []*admitRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), q.s.admitTimeout())
	defer cancel()
	results, err := q.admitTx(ctx, batch)
	for i, r := range batch {
		if err != nil {
			r.answer <- fmt.Errorf("store delivery %s: %w", r.job.deliveryOr(r.keys), err)
			continue
		}
		r.answer <- results[i]
	}
}

// admitTx records each delivery's keys and inserts the announce jobs of
// the new ones, in one transaction. A delivery with a key already known,
// also from earlier in the batch, gets errDuplicate and leaves none of its
// keys recorded. A non-request job whose head is queued already gets
// errSameHead: its keys stay recorded, its job is not stored.
func (q *riverQueue[TTx]) admitTx(ctx context.Context, batch []*admitRequest) ([]error, error) {
	now := nowUnix()
	results := make([]error, len(batch))
	err := q.ops.inTx(ctx, func(tx TTx) error {
		var jobs []river.InsertManyParams
		for i, r := range batch {
			results[i] = nil
			known, err := q.recordKeys(ctx, tx, r.keys, now)
			if err != nil {
				return err
			}
			if known {
				results[i] = errDuplicate
				continue
			}
			j := r.job
			if j == nil {
				continue
			}
			if h := headOf(j); h != "" && !j.Request {
				var head string
				err := q.ops.query1(ctx, tx, `SELECT head_sha FROM template_verify_heads WHERE pr_key = $1`, []any{prKeyOf(j)}, &head)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				if strings.EqualFold(head, j.HeadSHA) {
					results[i] = fmt.Errorf("%w: a job of this head waits, runs or ran", errSameHead)
					continue
				}
			}
			jobs = append(jobs, river.InsertManyParams{Args: announceArgs{Job: *j}, InsertOpts: &river.InsertOpts{Queue: queueAnnounce, MaxAttempts: announceMaxAttempts}})
		}
		if len(jobs) == 0 {
			return nil
		}
		_, err := q.client.InsertManyTx(ctx, tx, jobs)
		return err
	})
	return results, err
}

// recordKeys inserts keys into the delivery memory. When one is known
// already, it removes those it inserted and returns true.
func (q *riverQueue[TTx]) recordKeys(ctx context.Context, tx TTx, keys []string, now int64) (bool, error) {
	for i, k := range keys {
		n, err := q.ops.exec(ctx, tx, `INSERT INTO template_verify_deliveries (id, at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, k, now)
		if err != nil {
			return false, err
		}
		if n > 0 {
			continue
		}
		for _, added := range keys[:i] {
			if _, err := q.ops.exec(ctx, tx, `DELETE FROM template_verify_deliveries WHERE id = $1`, added); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return false, nil
}

// deliveryOr is j's delivery, or the first key when j is nil.
func (j *Job) deliveryOr(keys []string) string {
	if j != nil {
		return j.Delivery
	}
	if len(keys) > 0 {
		return keys[0]
	}
	return ""
}

func (q *riverQueue[TTx]) enqueueVerify(ctx context.Context, j *Job) (int64, []int64, error) {
	args := verifyArgs{Job: *j, Head: headOf(j)}
	if j.Request {
		args.Request = j.Delivery
	}
	var id int64
	var older []int64
	accepted := j.Accepted.UnixNano()
	err := q.ops.inTx(ctx, func(tx TTx) error {
		older = nil
		// A head is newer when its delivery was accepted later: the
		// announcers of two pushes may run in either order.
		var oldHead string
		var oldID, oldAt int64
		err := q.ops.query1(ctx, tx, `SELECT head_sha, job_id, at FROM template_verify_heads WHERE pr_key = $1`, []any{prKeyOf(j)}, &oldHead, &oldID, &oldAt)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if found && !strings.EqualFold(oldHead, j.HeadSHA) && oldAt > accepted {
			return errOlderHead
		}
		res, err := q.client.InsertTx(ctx, tx, args, &river.InsertOpts{
			Queue: queueVerify, MaxAttempts: verifyMaxAttempts,
			ScheduledAt: time.Now().Add(announceHold),
			UniqueOpts:  river.UniqueOpts{ByArgs: true},
		})
		if err != nil {
			return err
		}
		if res.UniqueSkippedAsDuplicate {
			var was verifyArgs
			if res.Job != nil && json.Unmarshal(res.Job.EncodedArgs, &was) == nil && was.Job.Delivery == j.Delivery {
				// An earlier attempt of this announce job queued it and
				// died before it stored the id.
				id = res.Job.ID
				return nil
			}
			return errSameHead
		}
		id = res.Job.ID
		if found && !strings.EqualFold(oldHead, j.HeadSHA) {
			older = append(older, oldID)
		}
		_, err = q.ops.exec(ctx, tx, `INSERT INTO template_verify_heads (pr_key, head_sha, job_id, at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (pr_key) DO UPDATE SET head_sha = excluded.head_sha, job_id = excluded.job_id, at = excluded.at`,
			prKeyOf(j), strings.ToLower(j.HeadSHA), id, accepted)
		return err
	})
	if errors.Is(err, errOlderHead) {
		return 0, nil, err
	}
	if errors.Is(err, errSameHead) {
		return 0, nil, fmt.Errorf("%w: a job of this head waits, runs or ran", errSameHead)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("queue the verification of %s: %w", short(j.HeadSHA), err)
	}
	return id, older, nil
}

func (q *riverQueue[TTx]) release(ctx context.Context, id int64) error {
	if _, err := q.client.JobRetry(ctx, id); err != nil {
		return fmt.Errorf("make job %d available: %w", id, err)
	}
	return nil
}

func (q *riverQueue[TTx]) cancel(ctx context.Context, id int64) (string, bool, error) {
	before, err := q.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("cancel job %d: %w", id, err)
	}
	row, err := q.client.JobCancel(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("cancel job %d: %w", id, err)
	}
	var args verifyArgs
	if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
		return "", false, fmt.Errorf("cancel job %d: %w", id, err)
	}
	waited := row.State == rivertype.JobStateCancelled && waitsOrRuns(before.State) && before.State != rivertype.JobStateRunning
	return args.Job.Delivery, waited, nil
}

// waitsOrRuns says whether a job state still waits or runs.
func waitsOrRuns(s rivertype.JobState) bool {
	switch s {
	case rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateRetryable,
		rivertype.JobStateScheduled, rivertype.JobStatePending:
		return true
	}
	return false
}

func (q *riverQueue[TTx]) headBusy(ctx context.Context, j *Job) (bool, error) {
	var head string
	var id int64
	err := q.ops.inTx(ctx, func(tx TTx) error {
		return q.ops.query1(ctx, tx, `SELECT head_sha, job_id FROM template_verify_heads WHERE pr_key = $1`, []any{prKeyOf(j)}, &head, &id)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the head of #%d: %w", j.PR, err)
	}
	if !strings.EqualFold(head, j.HeadSHA) {
		return false, nil
	}
	row, err := q.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read job %d: %w", id, err)
	}
	return waitsOrRuns(row.State), nil
}

func (q *riverQueue[TTx]) latestHead(ctx context.Context, prKey string) (string, error) {
	var head string
	err := q.ops.inTx(ctx, func(tx TTx) error {
		return q.ops.query1(ctx, tx, `SELECT head_sha FROM template_verify_heads WHERE pr_key = $1`, []any{prKey}, &head)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the newest head of %s: %w", prKey, err)
	}
	return head, nil
}
