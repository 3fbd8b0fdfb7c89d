// Retrying the App's writes and reads of its database through an outage.

package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// storeRetryWindow is how long a write or read of the App's bookkeeping
// is tried again, with backoff, before it fails: a database outage (a
// Postgres restart, a failover) shorter than this loses no run and fails
// no verification.
const storeRetryWindow = 5 * time.Minute

// storeError marks an error of the App's database, as opposed to one of
// GitHub's or of the verification: the announcer tries such an error
// again for the retry window, and a verification never concludes as
// failure because of one.
type storeError struct{ err error }

func (e storeError) Error() string { return e.err.Error() }
func (e storeError) Unwrap() error { return e.err }

// finalError is an answer of the database, not an outage: retryStore
// returns its error at once, unmarked.
type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }

// stored marks err as a database error (nil stays nil).
func stored(err error) error {
	if err == nil || isStoreError(err) {
		return err
	}
	return storeError{err}
}

// isStoreError says whether err is (or wraps) a database error.
func isStoreError(err error) bool {
	var se storeError
	return errors.As(err, &se)
}

// storeWindow is s.storeWait or storeRetryWindow.
func (s *server) storeWindow() time.Duration {
	if s.storeWait > 0 {
		return s.storeWait
	}
	return storeRetryWindow
}

// retryStore runs fn until it succeeds, ctx ends, or the retry window is
// over, waiting 250 ms, then twice as long each time up to 5 s, between
// tries (real time: an outage is). It returns fn's last error, marked
// as a database error.
func (s *server) retryStore(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	deadline := time.Now().Add(s.storeWindow())
	wait := 250 * time.Millisecond
	for try := 1; ; try++ {
		err := fn(ctx)
		var fin finalError
		if errors.As(err, &fin) {
			return fin.err
		}
		if databaseAnswer(err) {
			// The database answered: trying again gives the same
			// answer, so it is not waited out as an outage would be.
			s.log.Warn("the database refused the statement", "what", what, "error", err)
			return stored(err)
		}
		if err == nil {
			if try > 1 {
				s.log.Info("the database answers again", "what", what, "tries", try)
			}
			return nil
		}
		if ctx.Err() != nil || time.Now().Add(wait).After(deadline) {
			return stored(err)
		}
		s.log.Warn("the database does not answer; trying again", "what", what, "try", try, "in", wait, "error", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return stored(err)
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// saveStateRetry is saveState through retryStore.
func (s *server) saveStateRetry(ctx context.Context, j *Job) error {
	return s.retryStore(ctx, "store the job", func(ctx context.Context) error { return s.q.saveState(ctx, j) })
}

// databaseAnswer reports whether err is the database's answer to a
// statement (a broken constraint, an SQL error), which trying again
// cannot change, as opposed to an outage: a lost or refused connection,
// a server shutting down or out of resources, a busy or locked SQLite
// file, a serialization failure or a deadlock, which pass.
func databaseAnswer(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case strings.HasPrefix(pg.Code, "08"), // connection exception
			strings.HasPrefix(pg.Code, "53"), // insufficient resources
			strings.HasPrefix(pg.Code, "57"), // operator intervention: shutdown, cannot connect now
			strings.HasPrefix(pg.Code, "58"), // system error
			pg.Code == "40001", pg.Code == "40P01":
			return false
		}
		return true
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff { // the primary result code
		case 5, 6, 10, 13, 14: // BUSY, LOCKED, IOERR, FULL, CANTOPEN
			return false
		}
		return true
	}
	return false
}
