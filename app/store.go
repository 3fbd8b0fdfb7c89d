package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
type Store struct {
	db *bolt.DB
}

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
	return &Store{db: db}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// errDuplicate is returned by Accept for a delivery id already seen.
var errDuplicate = errors.New("duplicate delivery")

// Accept records the delivery id and, when j is not nil, stores the job,
// in one transaction. It returns errDuplicate when the id is known.
// Concurrent calls are batched into one write.
func (s *Store) Accept(delivery string, now time.Time, j *Job) error {
	var val []byte
	if j != nil {
		var err error
		if val, err = json.Marshal(j); err != nil {
			return fmt.Errorf("encode job %s: %w", delivery, err)
		}
	}
	dup := false
	err := s.db.Batch(func(tx *bolt.Tx) error {
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
	if err := s.db.Update(func(tx *bolt.Tx) error {
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
	if err := s.db.Update(func(tx *bolt.Tx) error {
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
	return s.db.Update(func(tx *bolt.Tx) error {
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
}
