package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// testDatabaseEnv names the Postgres URL of the tests: a superuser's, so
// that each test makes its own database. scripts/test.sh sets it after
// scripts/pg.sh starts Postgres.
const testDatabaseEnv = "TEMPLATE_VERIFY_TEST_DATABASE_URL"

// drivers are the databases the promises are tested on.
var drivers = []string{"sqlite", "postgres"}

// forDrivers runs fn as a parallel subtest per driver with the harness's
// database set: SQLite in the data folder, or a Postgres database of its
// own (skipped, naming the variable, when it is not set).
func forDrivers(t *testing.T, fn func(t *testing.T, h *harness)) {
	for _, d := range drivers {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if d == "postgres" {
				h.dbURL = testDatabase(t)
			}
			fn(t, h)
		})
	}
}

// testDatabase makes a Postgres database for t and drops it afterwards;
// it skips t when testDatabaseEnv is not set.
func testDatabase(t testing.TB) string {
	t.Helper()
	base := os.Getenv(testDatabaseEnv)
	if base == "" {
		t.Skipf("no Postgres: set %s (scripts/test.sh starts one with scripts/pg.sh)", testDatabaseEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", testDatabaseEnv, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tv_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop the test database: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop the test database: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
