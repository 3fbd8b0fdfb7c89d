package app

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRetryStoreWaitsOutOutagesNotAnswers: an outage (a lost connection,
// a server shutting down, a locked SQLite file) is tried again until it
// passes; an answer of the database (a broken unique index, an SQL
// error) is returned after one try, where it used to be tried for the
// whole retry window.
func TestRetryStoreWaitsOutOutagesNotAnswers(t *testing.T) {
	t.Parallel()
	// A real SQLite constraint error and a real busy error.
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/x.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (k TEXT PRIMARY KEY); INSERT INTO t VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	_, liteUnique := db.Exec(`INSERT INTO t VALUES ('a')`)
	if liteUnique == nil {
		t.Fatal("no constraint error")
	}
	tests := []struct {
		name      string
		first     error // the first try's error; later tries pass
		wantTries int
		wantErr   bool
	}{
		{"postgres unique violation", &pgconn.PgError{Code: "23505", Message: "duplicate key"}, 1, true},
		{"postgres syntax error", &pgconn.PgError{Code: "42601"}, 1, true},
		{"sqlite unique constraint", liteUnique, 1, true},
		{"postgres shutting down", &pgconn.PgError{Code: "57P01"}, 2, false},
		{"postgres connection failure", &pgconn.PgError{Code: "08006"}, 2, false},
		{"postgres deadlock", &pgconn.PgError{Code: "40P01"}, 2, false},
		{"a lost connection", io.ErrUnexpectedEOF, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), storeWait: time.Minute}
			tries := 0
			err := s.retryStore(context.Background(), "test", func(context.Context) error {
				tries++
				if tries == 1 {
					return tc.first
				}
				return nil
			})
			if tries != tc.wantTries || (err != nil) != tc.wantErr {
				t.Errorf("%d tries, error %v; want %d tries, an error %v", tries, err, tc.wantTries, tc.wantErr)
			}
			if tc.wantErr && !errors.Is(err, tc.first) {
				t.Errorf("error %v does not wrap %v", err, tc.first)
			}
		})
	}
}
