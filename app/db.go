package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	// The SQLite driver is modernc.org/sqlite: SQLite translated to pure
	// Go. It needs no cgo, so `CGO_ENABLED=0 go build` and cross builds
	// keep working and the release binary stays one static file, as it
	// was with bbolt. The cgo driver (mattn/go-sqlite3) is faster per
	// statement; the App's writes are a few small rows per webhook. On
	// this driver the answer's largest single cost is River's job insert,
	// much of it preparing the statement again (this driver keeps no
	// prepared statements); BenchmarkWebhookAck and docs/replicas.md
	// have the measured p99: with the App in its own process, under 50 ms
	// on SQLite at an even 200 deliveries/s in 5 of 6 quiet runs, over it
	// on Postgres.
	_ "modernc.org/sqlite"
)

// SQLiteFile is the name of the default database in the data folder.
const SQLiteFile = "template-verify.sqlite"

// dialect names the database: SQLite (the default, a file in the data
// folder) or Postgres (--database-url, for replicas).
type dialect string

const (
	dialectSQLite   dialect = "sqlite"
	dialectPostgres dialect = "postgres"
)

// isPostgresURL reports whether url names a Postgres database.
func isPostgresURL(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// ownMigrations are the App's tables beside River's, one list per
// dialect (their SQL happens to be the same today): the delivery ids and
// body hashes seen, the newest head of each pull request and the job that
// runs it, and the mutable state of each verification (its check runs,
// the attempts the process did not survive, what failed to publish).
// Times are Unix seconds, but a head's: Unix nanoseconds of its
// delivery's acceptance, which orders the pushes of a pull request.
var ownMigrations = map[dialect][]string{
	dialectSQLite: {
		`CREATE TABLE template_verify_deliveries (id TEXT PRIMARY KEY, at BIGINT NOT NULL);
		 CREATE INDEX template_verify_deliveries_at ON template_verify_deliveries (at);
		 CREATE TABLE template_verify_heads (pr_key TEXT PRIMARY KEY, head_sha TEXT NOT NULL, job_id BIGINT NOT NULL, at BIGINT NOT NULL);
		 CREATE TABLE template_verify_jobs (delivery TEXT PRIMARY KEY, data TEXT NOT NULL)`,
		migrationDoneReplicas,
		migrationCache,
	},
	dialectPostgres: {
		`CREATE TABLE template_verify_deliveries (id TEXT PRIMARY KEY, at BIGINT NOT NULL);
		 CREATE INDEX template_verify_deliveries_at ON template_verify_deliveries (at);
		 CREATE TABLE template_verify_heads (pr_key TEXT PRIMARY KEY, head_sha TEXT NOT NULL, job_id BIGINT NOT NULL, at BIGINT NOT NULL);
		 CREATE TABLE template_verify_jobs (delivery TEXT PRIMARY KEY, data TEXT NOT NULL)`,
		migrationDoneReplicas,
		migrationCache,
	},
}

// migrationDoneReplicas (migration 2) adds the deliveries whose
// verification finished (a job River runs again after its completion was
// lost finds it there and does nothing), and each replica's heartbeat
// (Unix seconds), by which the others rescue the jobs of a dead one.
const migrationDoneReplicas = `CREATE TABLE template_verify_done (delivery TEXT PRIMARY KEY, at BIGINT NOT NULL);
		 CREATE INDEX template_verify_done_at ON template_verify_done (at);
		 CREATE TABLE template_verify_replicas (id TEXT PRIMARY KEY, seen BIGINT NOT NULL)`

// migrationCache (migration 3) adds the results cache that replicas
// share: the entries of each repository's cache folder (JSON text, by
// their path in the folder), so that a push verified on one replica
// reuses what another kept (see cache.go).
const migrationCache = `CREATE TABLE template_verify_cache (repo TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (repo, name));
		 CREATE INDEX template_verify_cache_at ON template_verify_cache (at)`

// migrateLockKey is the Postgres advisory lock that makes replicas that
// start at once migrate one after another.
const migrateLockKey = 0x74765f6d // "tv_m"

// sqlOps are the few database operations the App needs, for one driver's
// transaction type.
type sqlOps[TTx any] struct {
	begin    func(ctx context.Context) (TTx, error)
	commit   func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx) error
	// exec returns the rows affected.
	exec func(ctx context.Context, tx TTx, q string, args ...any) (int64, error)
	// query1 scans one row into dest; no row: sql.ErrNoRows.
	query1 func(ctx context.Context, tx TTx, q string, args []any, dest ...any) error
	// each calls row for every row, with the row's scan.
	each  func(ctx context.Context, tx TTx, q string, args []any, row func(scan func(dest ...any) error) error) error
	close func()
}

// inTx runs fn in a transaction and commits it when fn returns nil.
func (o sqlOps[TTx]) inTx(ctx context.Context, fn func(tx TTx) error) error {
	tx, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = o.rollback(ctx, tx)
		return err
	}
	if err := o.commit(ctx, tx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// openSQLite opens the SQLite file with one connection: SQLite takes
// one writer at a time, and River's SQLite driver asks for a pool of one
// so that its own operations do not fail with SQLITE_BUSY.
func openSQLite(cfg Config) (*sql.DB, sqlOps[*sql.Tx], error) {
	path := cfg.SQLitePath
	if path == "" {
		path = filepath.Join(cfg.DataDir, SQLiteFile)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, sqlOps[*sql.Tx]{}, fmt.Errorf("data folder: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, sqlOps[*sql.Tx]{}, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		_ = db.Close()
		return nil, sqlOps[*sql.Tx]{}, fmt.Errorf("open %s: %w", path, err)
	}
	return db, stdOps(db), nil
}

// stdOps are sqlOps over database/sql.
func stdOps(db *sql.DB) sqlOps[*sql.Tx] {
	return sqlOps[*sql.Tx]{
		begin:    func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
		commit:   func(_ context.Context, tx *sql.Tx) error { return tx.Commit() },
		rollback: func(_ context.Context, tx *sql.Tx) error { return tx.Rollback() },
		exec: func(ctx context.Context, tx *sql.Tx, q string, args ...any) (int64, error) {
			res, err := tx.ExecContext(ctx, q, args...)
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		},
		query1: func(ctx context.Context, tx *sql.Tx, q string, args []any, dest ...any) error {
			return tx.QueryRowContext(ctx, q, args...).Scan(dest...)
		},
		each: func(ctx context.Context, tx *sql.Tx, q string, args []any, row func(scan func(dest ...any) error) error) error {
			rows, err := tx.QueryContext(ctx, q, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := row(rows.Scan); err != nil {
					return err
				}
			}
			return rows.Err()
		},
		close: func() { _ = db.Close() },
	}
}

// openPostgres connects a pool to url.
func openPostgres(ctx context.Context, url string) (*pgxpool.Pool, sqlOps[pgx.Tx], error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, sqlOps[pgx.Tx]{}, fmt.Errorf("the database URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, sqlOps[pgx.Tx]{}, fmt.Errorf("connect to Postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, sqlOps[pgx.Tx]{}, fmt.Errorf("connect to Postgres: %w", err)
	}
	ops := sqlOps[pgx.Tx]{
		begin:    func(ctx context.Context) (pgx.Tx, error) { return pool.Begin(ctx) },
		commit:   func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) },
		rollback: func(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) },
		exec: func(ctx context.Context, tx pgx.Tx, q string, args ...any) (int64, error) {
			tag, err := tx.Exec(ctx, q, args...)
			if err != nil {
				return 0, err
			}
			return tag.RowsAffected(), nil
		},
		each: func(ctx context.Context, tx pgx.Tx, q string, args []any, row func(scan func(dest ...any) error) error) error {
			rows, err := tx.Query(ctx, q, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := row(rows.Scan); err != nil {
					return err
				}
			}
			return rows.Err()
		},
		query1: func(ctx context.Context, tx pgx.Tx, q string, args []any, dest ...any) error {
			err := tx.QueryRow(ctx, q, args...).Scan(dest...)
			if errors.Is(err, pgx.ErrNoRows) {
				return sql.ErrNoRows
			}
			return err
		},
		close: pool.Close,
	}
	return pool, ops, nil
}

// migrateOwn runs the App's migrations that have not run, in one
// transaction each, and records them in template_verify_migration.
func migrateOwn[TTx any](ctx context.Context, o sqlOps[TTx], d dialect) error {
	err := o.inTx(ctx, func(tx TTx) error {
		_, err := o.exec(ctx, tx, `CREATE TABLE IF NOT EXISTS template_verify_migration (version BIGINT PRIMARY KEY, at BIGINT NOT NULL)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("the App's migration table: %w", err)
	}
	for i, m := range ownMigrations[d] {
		version := int64(i + 1)
		err := o.inTx(ctx, func(tx TTx) error {
			var n int64
			if err := o.query1(ctx, tx, `SELECT count(*) FROM template_verify_migration WHERE version = $1`, []any{version}, &n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			for _, stmt := range strings.Split(m, ";") {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				if _, err := o.exec(ctx, tx, stmt); err != nil {
					return err
				}
			}
			_, err := o.exec(ctx, tx, `INSERT INTO template_verify_migration (version, at) VALUES ($1, $2)`, version, nowUnix())
			return err
		})
		if err != nil {
			return fmt.Errorf("the App's migration %d: %w", version, err)
		}
	}
	return nil
}

// Migrate brings the database of cfg (DatabaseURL, else the SQLite file
// in DataDir) to the current schema: River's migrations, then the App's.
// serve runs it at start; `serve migrate` runs only it.
func Migrate(ctx context.Context, cfg Config) error {
	if isPostgresURL(cfg.DatabaseURL) {
		pool, ops, err := openPostgres(ctx, cfg.DatabaseURL)
		if err != nil {
			return err
		}
		defer ops.close()
		return migratePostgres(ctx, pool, ops)
	}
	if cfg.DatabaseURL != "" {
		return fmt.Errorf("the database URL must start with postgres:// (or leave it empty for the SQLite file in the data folder)")
	}
	db, ops, err := openSQLite(cfg)
	if err != nil {
		return err
	}
	defer ops.close()
	return migrateSQLite(ctx, db, ops)
}

func migrateSQLite(ctx context.Context, db *sql.DB, ops sqlOps[*sql.Tx]) error {
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("migrations of the queue (River): %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrations of the queue (River): %w", err)
	}
	return migrateOwn(ctx, ops, dialectSQLite)
}

func migratePostgres(ctx context.Context, pool *pgxpool.Pool, ops sqlOps[pgx.Tx]) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrateLockKey)); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrateLockKey))
	}()
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("migrations of the queue (River): %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrations of the queue (River): %w", err)
	}
	return migrateOwn(ctx, ops, dialectPostgres)
}
