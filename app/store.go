package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

var (
	bucketJobs       = []byte("jobs")
	bucketDeliveries = []byte("deliveries")
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

// OpenStore opens (or creates) the store in dir.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	path := filepath.Join(dir, "template-verify.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketJobs, bucketDeliveries} {
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

// errDuplicate is returned by Accept for a delivery id already seen.
var errDuplicate = errors.New("duplicate delivery")

// Accept records the delivery id and, when j is not nil, stores the job,
// in one transaction. It returns errDuplicate when the id is known.
// Concurrent calls share one commit.
func (s *Store) Accept(delivery string, now time.Time, j *Job) error {
	var val []byte
	if j != nil {
		var err error
		if val, err = json.Marshal(j); err != nil {
			return fmt.Errorf("encode job %s: %w", delivery, err)
		}
	}
	dup := false
	err := s.update(func(tx *bolt.Tx) error {
		dup = false
		d := tx.Bucket(bucketDeliveries)
		if d.Get([]byte(delivery)) != nil {
			dup = true
			return nil
		}
		stamp, _ := now.UTC().MarshalText()
		if err := d.Put([]byte(delivery), stamp); err != nil {
			return err
		}
		if val != nil {
			return tx.Bucket(bucketJobs).Put([]byte(delivery), val)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store delivery %s: %w", delivery, err)
	}
	if dup {
		return errDuplicate
	}
	return nil
}

// Put stores the job under its delivery id.
func (s *Store) Put(j *Job) error {
	val, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", j.Delivery, err)
	}
	if err := s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).Put([]byte(j.Delivery), val)
	}); err != nil {
		return fmt.Errorf("store job %s: %w", j.Delivery, err)
	}
	return nil
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

// Delete removes a finished job. The delivery id stays known.
func (s *Store) Delete(delivery string) error {
	if err := s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).Delete([]byte(delivery))
	}); err != nil {
		return fmt.Errorf("delete job %s: %w", delivery, err)
	}
	return nil
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

// PruneDeliveries forgets delivery ids older than the TTL.
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
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget old deliveries: %w", err)
	}
	return nil
}
