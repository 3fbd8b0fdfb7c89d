package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

var (
	bucketJobs       = []byte("jobs")
	bucketDeliveries = []byte("deliveries")
	// bucketHeads holds one claim per pull-request head (see Claim).
	bucketHeads = []byte("heads")
)

// deliveryTTL is how long the store remembers a delivery id.
const deliveryTTL = 7 * 24 * time.Hour

// Store keeps jobs and seen delivery ids in a bbolt file, so that
// accepted work survives a restart.
//
// Every write goes through one committer goroutine that takes all the
// writes waiting at that moment and commits them in one transaction (group
// commit). A burst of webhook deliveries therefore costs a few commits, not
// one each, and the background writes of the announcer and the workers
// share those commits instead of queueing for bbolt's writer lock. Unlike
// bolt.DB.Batch there is no timer: a write waits at most for the commit in
// progress and its own.
type Store struct {
	db     *bolt.DB
	writes chan storeWrite
	done   chan struct{} // closed when the committer has stopped
	mu     sync.RWMutex  // guards closed against sends racing Close
	closed bool
}

// storeWrite is one write waiting for the committer.
type storeWrite struct {
	fn     func(*bolt.Tx) error
	result chan error
}

// maxGroup caps the writes committed in one transaction.
const maxGroup = 512

// errStoreClosed is returned for a write after Close.
var errStoreClosed = errors.New("the store is closed")

// openStore opens (or creates) the store in dir.
func openStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	path := filepath.Join(dir, "template-verify.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketJobs, bucketDeliveries, bucketHeads} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	st := &Store{db: db, writes: make(chan storeWrite, maxGroup), done: make(chan struct{})}
	go st.committer()
	return st, nil
}

// Close waits for the writes already sent, then closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.writes)
	s.mu.Unlock()
	<-s.done
	return s.db.Close()
}

// update runs fn in a write transaction shared with the other writes
// waiting at the same moment, and returns once that transaction is on
// disk. fn may run twice (see commit), so it must not keep state between
// calls.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	w := storeWrite{fn: fn, result: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errStoreClosed
	}
	s.writes <- w
	s.mu.RUnlock()
	return <-w.result
}

// committer commits the waiting writes in groups until Close.
func (s *Store) committer() {
	defer close(s.done)
	for w := range s.writes {
		group := []storeWrite{w}
	more:
		for len(group) < maxGroup {
			select {
			case w, ok := <-s.writes:
				if !ok {
					break more
				}
				group = append(group, w)
			default:
				break more
			}
		}
		s.commit(group)
	}
}

// commit writes a group in one transaction. When that fails, each write
// runs again in a transaction of its own, so one bad write cannot fail
// the others.
func (s *Store) commit(group []storeWrite) {
	err := s.db.Update(func(tx *bolt.Tx) error {
		for _, w := range group {
			if err := w.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || len(group) == 1 {
		for _, w := range group {
			w.result <- err
		}
		return
	}
	for _, w := range group {
		w.result <- s.db.Update(w.fn)
	}
}

// errDuplicate is returned by Accept for a delivery id or a body already
// seen.
var errDuplicate = errors.New("duplicate delivery")

// errSameHead is returned by Admit and Claim when another job of the same
// pull request and head waits or runs, or when the head ran and the job
// is not a request for a new run. It wraps errDuplicate.
var errSameHead = fmt.Errorf("%w: the same head", errDuplicate)

// headClaim is the value of a head in bucketHeads: the delivery of the
// one job of that head, whether that job reached a worker's queue (then
// the head counts as verified once the job is gone), and when.
type headClaim struct {
	Delivery string `json:"delivery"`
	// Firm: the announcer claimed the head for a job that may run (Claim);
	// else the claim was made when the delivery was accepted (Admit).
	Firm   bool      `json:"firm"`
	Queued bool      `json:"queued"`
	At     time.Time `json:"at"`
}

// headKey names the head of j: repository (GitHub's names ignore case),
// pull request and head sha. ok is false while the announcer has not
// found the pull request or the head.
func headKey(j *Job) (key []byte, ok bool) {
	if j == nil || j.PR <= 0 || j.HeadSHA == "" || j.Owner == "" || j.Repo == "" {
		return nil, false
	}
	return []byte(strings.ToLower(j.FullName()) + "#" + strconv.Itoa(j.PR) + "@" + strings.ToLower(j.HeadSHA)), true
}

// claimTx makes j the one job of its head, in tx. It returns a reason
// when another job holds the head: that job still waits or runs, or it
// ran and j is not a request for a new run. A firm claim (Claim: the job
// may run) lets a request take the head from a job whose claim is not
// firm yet (it waits for the announcer); that job is then dropped when
// the announcer comes to it.
func claimTx(tx *bolt.Tx, j *Job, now time.Time, firm bool) (string, error) {
	key, ok := headKey(j)
	if !ok {
		return "", nil
	}
	why, err := takenTx(tx, key, j, firm)
	if why != "" || err != nil {
		return why, err
	}
	c := headClaim{Delivery: j.Delivery, Firm: firm, At: now.UTC()}
	var prev headClaim
	if v := tx.Bucket(bucketHeads).Get(key); v != nil && json.Unmarshal(v, &prev) == nil && prev.Delivery == j.Delivery {
		c.Firm, c.Queued = c.Firm || prev.Firm, prev.Queued // its own claim again
	}
	val, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return "", tx.Bucket(bucketHeads).Put(key, val)
}

// takenTx says why j cannot claim the head key ("" when it can).
func takenTx(tx *bolt.Tx, key []byte, j *Job, takeover bool) (string, error) {
	v := tx.Bucket(bucketHeads).Get(key)
	if v == nil {
		return "", nil
	}
	var c headClaim
	if err := json.Unmarshal(v, &c); err != nil {
		return "", fmt.Errorf("head %s: %w", key, err)
	}
	switch {
	case c.Delivery == j.Delivery:
		return "", nil
	case tx.Bucket(bucketJobs).Get([]byte(c.Delivery)) != nil:
		if takeover && j.Request && !c.Firm && !c.Queued {
			return "", nil
		}
		return "a job of this head waits or runs", nil
	case c.Queued && !j.Request:
		return "this head was verified", nil
	}
	return "", nil
}

// HeadTaken says why j cannot claim its head now ("" when it can),
// without claiming it.
func (s *Store) HeadTaken(j *Job) (string, error) {
	key, ok := headKey(j)
	if !ok {
		return "", nil
	}
	var why string
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		why, err = takenTx(tx, key, j, false)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read the head of job %s: %w", j.Delivery, err)
	}
	return why, nil
}

// Admit records a delivery by its id and the SHA-256 of its body and,
// when j is not nil, stores the job and claims its head (when the event
// names the head), in one transaction. It returns errDuplicate when the
// id or the body was seen (the id is not signed; the body is), and
// errSameHead when another job holds the head: then the delivery is
// recorded and j is not stored. Concurrent calls share one commit.
func (s *Store) Admit(delivery, bodySum string, now time.Time, j *Job) error {
	var val []byte
	if j != nil {
		var err error
		if val, err = json.Marshal(j); err != nil {
			return fmt.Errorf("encode job %s: %w", delivery, err)
		}
	}
	var dup error
	err := s.update(func(tx *bolt.Tx) error {
		dup = nil
		d := tx.Bucket(bucketDeliveries)
		keys := [][]byte{[]byte(delivery)}
		if bodySum != "" {
			keys = append(keys, []byte(bodyKeyPrefix+bodySum))
		}
		for _, k := range keys {
			if d.Get(k) != nil {
				dup = errDuplicate
				return nil
			}
		}
		stamp, _ := now.UTC().MarshalText()
		for _, k := range keys {
			if err := d.Put(k, stamp); err != nil {
				return err
			}
		}
		if val == nil {
			return nil
		}
		why, err := claimTx(tx, j, now, false)
		if err != nil {
			return err
		}
		if why != "" {
			dup = fmt.Errorf("%w: %s", errSameHead, why)
			return nil
		}
		return tx.Bucket(bucketJobs).Put([]byte(delivery), val)
	})
	if err != nil {
		return fmt.Errorf("store delivery %s: %w", delivery, err)
	}
	return dup
}

// bodyKeyPrefix starts the key of a body's SHA-256 in bucketDeliveries.
const bodyKeyPrefix = "sha256:"

// Accept is Admit without a body hash.
func (s *Store) Accept(delivery string, now time.Time, j *Job) error {
	return s.Admit(delivery, "", now, j)
}

// Claim makes j the one job of its head and stores j, in one transaction,
// so that two announcers (or an announcer before and after a restart)
// cannot both queue a head. It returns an error that wraps errSameHead
// when another job holds the head. Claiming again a head j holds is fine.
// Call it once j may run: a request then takes the head from a job that
// the announcer has not queued yet.
func (s *Store) Claim(j *Job, now time.Time) error {
	val, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", j.Delivery, err)
	}
	var dup error
	err = s.update(func(tx *bolt.Tx) error {
		dup = nil
		why, err := claimTx(tx, j, now, true)
		if err != nil {
			return err
		}
		if why != "" {
			dup = fmt.Errorf("%w: %s", errSameHead, why)
			return nil
		}
		return tx.Bucket(bucketJobs).Put([]byte(j.Delivery), val)
	})
	if err != nil {
		return fmt.Errorf("claim the head of job %s: %w", j.Delivery, err)
	}
	return dup
}

// Put stores the job under its delivery id. A job put as queued or
// running marks its head's claim as queued.
func (s *Store) Put(j *Job) error {
	val, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", j.Delivery, err)
	}
	if err := s.update(func(tx *bolt.Tx) error {
		if j.State == StateQueued || j.State == StateRunning {
			if err := markQueuedTx(tx, j); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketJobs).Put([]byte(j.Delivery), val)
	}); err != nil {
		return fmt.Errorf("store job %s: %w", j.Delivery, err)
	}
	return nil
}

// markQueuedTx marks the claim that j holds as queued.
func markQueuedTx(tx *bolt.Tx, j *Job) error {
	key, ok := headKey(j)
	if !ok {
		return nil
	}
	heads := tx.Bucket(bucketHeads)
	v := heads.Get(key)
	if v == nil {
		return nil
	}
	var c headClaim
	if json.Unmarshal(v, &c) != nil || c.Delivery != j.Delivery || c.Queued {
		return nil
	}
	c.Queued = true
	val, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return heads.Put(key, val)
}

// Get reads a job; ok is false when it is not there.
func (s *Store) Get(delivery string) (j *Job, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketJobs).Get([]byte(delivery))
		if v == nil {
			return nil
		}
		j = &Job{}
		ok = true
		return json.Unmarshal(v, j)
	})
	if err != nil {
		return nil, false, fmt.Errorf("read job %s: %w", delivery, err)
	}
	return j, ok, nil
}

// Delete removes a finished job. The delivery id stays known. When the
// job held its head and was never queued (it waited for a maintainer, or
// the announcer gave up), the head is free again; a head whose job was
// queued stays claimed as verified.
func (s *Store) Delete(delivery string) error {
	if err := s.update(func(tx *bolt.Tx) error {
		jobs := tx.Bucket(bucketJobs)
		if v := jobs.Get([]byte(delivery)); v != nil {
			var j Job
			if json.Unmarshal(v, &j) == nil {
				if err := releaseTx(tx, &j); err != nil {
					return err
				}
			}
		}
		return jobs.Delete([]byte(delivery))
	}); err != nil {
		return fmt.Errorf("delete job %s: %w", delivery, err)
	}
	return nil
}

// releaseTx frees the head j holds when it was never queued.
func releaseTx(tx *bolt.Tx, j *Job) error {
	key, ok := headKey(j)
	if !ok {
		return nil
	}
	heads := tx.Bucket(bucketHeads)
	var c headClaim
	if v := heads.Get(key); v == nil || json.Unmarshal(v, &c) != nil || c.Delivery != j.Delivery || c.Queued {
		return nil
	}
	return heads.Delete(key)
}

// Jobs lists the stored jobs, oldest first.
func (s *Store) Jobs() ([]*Job, error) {
	var out []*Job
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
			j := &Job{}
			if err := json.Unmarshal(v, j); err != nil {
				return fmt.Errorf("job %s: %w", k, err)
			}
			out = append(out, j)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Accepted.Before(out[b].Accepted) })
	return out, nil
}

// PruneDeliveries forgets delivery ids, body hashes and the claims of
// heads whose job is gone, older than the TTL.
func (s *Store) PruneDeliveries(now time.Time) error {
	cut := now.Add(-deliveryTTL)
	err := s.update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketDeliveries).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var t time.Time
			if t.UnmarshalText(v) == nil && t.Before(cut) {
				if err := c.Delete(); err != nil {
					return err
				}
			}
		}
		jobs := tx.Bucket(bucketJobs)
		h := tx.Bucket(bucketHeads).Cursor()
		for k, v := h.First(); k != nil; k, v = h.Next() {
			var hc headClaim
			if json.Unmarshal(v, &hc) == nil && hc.At.Before(cut) && jobs.Get([]byte(hc.Delivery)) == nil {
				if err := h.Delete(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget old deliveries: %w", err)
	}
	return nil
}
