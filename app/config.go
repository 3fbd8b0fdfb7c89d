package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
	"github.com/formula-code/template-verify/verify/child"
)

// DefaultAPIURL is GitHub's public REST API.
const DefaultAPIURL = githubapi.DefaultAPIURL

// MaxBody is the largest webhook body taken: GitHub caps payloads at
// 25 MB.
const MaxBody = 25 << 20

// DefaultNice is the nice level of the processes that runs start.
const DefaultNice = 10

// VerifyFunc runs one verification: verify.Run, which tests replace. The
// worker fills RepoDir (the clone, with base and head fetched), Base,
// Head, RepoName, Log, Description (the pull request's body) and Checks
// (the defaults with a release ledger that reads the gate runs of merged
// pull requests through the installation's client).
type VerifyFunc func(ctx context.Context, opts verify.Options) (*report.Report, error)

// Config configures the App server.
type Config struct {
	AppID         int64
	PrivateKey    []byte // PEM
	WebhookSecret []byte
	// AppSlug makes the comment author "<slug>[bot]"; empty: asked from
	// GET /app at start-up.
	AppSlug string
	// APIURL is the REST API base URL; empty: DefaultAPIURL. For GitHub
	// Enterprise Server: https://HOST/api/v3.
	APIURL string
	// DataDir holds the work folders and, without DatabaseURL, the
	// SQLite database (SQLiteFile).
	DataDir string
	// SQLitePath is the SQLite database without DatabaseURL; empty:
	// SQLiteFile in DataDir.
	SQLitePath string
	// DatabaseURL is a Postgres URL (postgres://...) shared by replicas;
	// empty: the SQLite file in DataDir.
	DatabaseURL string
	// Replica names this process in /metrics and in River (its client
	// id, unique among the replicas of one database); empty: the id kept
	// in DataDir (replicaFile), so that a restart takes up the jobs its
	// last process left running at once.
	Replica string
	// MetricsAddr serves /metrics on this address alone, not on the
	// webhook listener; empty or MetricsOnWebhook: on the webhook
	// listener. serve's default is DefaultMetricsAddr.
	MetricsAddr string
	// RescueAfter is how long a job may stay running before River's
	// leader takes it for a process that died and runs it again; <= 0:
	// DefaultRescueAfter. It must be longer than any verification.
	RescueAfter time.Duration
	// MaxAttempts is how many runs of one verification the process may
	// die in before the job is concluded as failure; <= 0: MaxAttempts.
	MaxAttempts int
	// PollInterval is how often River looks for new jobs besides its
	// notifications (Postgres) or at all (SQLite); <= 0: 250 ms.
	PollInterval time.Duration
	// PruneEvery is how often the leader forgets old delivery ids; <= 0:
	// pruneEvery.
	PruneEvery time.Duration
	// CacheBytes bounds the results cache in DATA_DIR/cache (render
	// recordings, restore and pytest results that a later push with the
	// same inputs reuses): before each verification the entries used
	// longest ago are removed down to it. 0: DefaultCacheBytes; < 0: no
	// cache.
	CacheBytes int64
	// Workers is the number of verifications that run at once; <= 0: 2.
	Workers int
	// Nice is the nice level (0 to 19) of the processes that runs start
	// (git, bash, pytest), so that they yield the CPU to the webhook
	// handler; 0 leaves them at this process's level. It applies to every
	// process this process starts from start on. serve's default is
	// DefaultNice.
	Nice int
	// Announcers is the number of goroutines that create the queued check
	// runs; <= 0: 4.
	Announcers int
	// ShutdownGrace is how long shutdown lets running verifications
	// finish before it stops them and keeps them for the next start.
	// Zero: no wait.
	ShutdownGrace time.Duration

	// AllowUnsandboxed lets the default verification run code from pull
	// requests where bubblewrap cannot start a sandbox (serve's
	// --allow-unsandboxed). Without it newServer refuses to start there: that
	// code could read every file of this user, reach the network, and
	// outlive its run inside a PID namespace no longer.
	AllowUnsandboxed bool
	// Sandbox is where code from pull requests runs: auto, bwrap,
	// landlock or none (serve's --sandbox); empty: auto. Each
	// verification gets it as verify.Options.Sandbox.
	Sandbox string

	// Verify runs one verification; nil: VerifyChild, else verify.Run
	// with the default checks in this process.
	Verify VerifyFunc
	// VerifyChild, when set and Verify is nil, runs each verification in
	// a child process (serve's default: this binary's verify-child) with
	// its memory and time limits; its Checks default to Checks.
	VerifyChild *child.Runner
	// Checks are the check names whose runs are created before the
	// verification; nil: the names of verify.DefaultChecks.
	Checks []string
	// Clock is used for all GitHub waits; nil: githubapi.RealClock.
	Clock githubapi.Clock
	// WriteInterval spaces the writes of one installation; zero:
	// githubapi.DefaultWriteInterval, negative: no spacing.
	WriteInterval time.Duration
	// HTTPTransport is the base transport of API calls; nil:
	// http.DefaultTransport.
	HTTPTransport http.RoundTripper
	Log           *slog.Logger
}

// DefaultMetricsAddr is serve's /metrics address: its own, on loopback,
// so that the webhook port, which faces GitHub, does not show the
// queue's figures.
const DefaultMetricsAddr = "127.0.0.1:9090"

// MetricsOnWebhook as Config.MetricsAddr (serve --metrics-addr webhook)
// serves /metrics on the webhook listener.
const MetricsOnWebhook = "webhook"

// metricsApart says whether /metrics has a listener of its own.
func (c *Config) metricsApart() bool {
	return c.MetricsAddr != "" && c.MetricsAddr != MetricsOnWebhook
}

// DefaultRescueAfter is Config.RescueAfter's default: longer than any
// verification (a datasmith pull request takes 1 to 7 minutes).
const DefaultRescueAfter = time.Hour

// DefaultCacheBytes is the size of the results cache when Config.CacheBytes
// is 0.
const DefaultCacheBytes = 1 << 30

func (c *Config) cacheBytes() int64 {
	if c.CacheBytes == 0 {
		return DefaultCacheBytes
	}
	return c.CacheBytes
}

func (c *Config) pollInterval() time.Duration {
	if c.PollInterval > 0 {
		return c.PollInterval
	}
	return 250 * time.Millisecond
}

func (c *Config) pruneEvery() time.Duration {
	if c.PruneEvery > 0 {
		return c.PruneEvery
	}
	return pruneEvery
}

func (c *Config) maxAttempts() int {
	if c.MaxAttempts > 0 {
		return c.MaxAttempts
	}
	return MaxAttempts
}

func (c *Config) check() error {
	var errs []error
	if c.AppID <= 0 {
		errs = append(errs, errors.New("the App id is missing"))
	}
	if len(c.PrivateKey) == 0 {
		errs = append(errs, errors.New("the App private key is missing"))
	}
	if c.Nice < 0 || c.Nice > nice.Max {
		errs = append(errs, fmt.Errorf("nice level %d: want 0 to %d", c.Nice, nice.Max))
	}
	if len(c.WebhookSecret) == 0 {
		errs = append(errs, errors.New("the webhook secret is missing"))
	}
	if c.DatabaseURL != "" && !isPostgresURL(c.DatabaseURL) {
		errs = append(errs, errors.New("the database URL must start with postgres:// or postgresql://"))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("the data folder is missing"))
	}
	sctx, err := sandbox.WithMode(context.Background(), c.Sandbox)
	if err != nil {
		errs = append(errs, err)
	} else if err := sandbox.Check(sctx); err != nil {
		errs = append(errs, err)
	} else if c.Verify == nil && !c.AllowUnsandboxed && !sandbox.Available(sctx) {
		errs = append(errs, fmt.Errorf("no sandbox for code from pull requests: %s; make bubblewrap work, or accept running that code unsandboxed with --allow-unsandboxed (TEMPLATE_VERIFY_ALLOW_UNSANDBOXED=1; Config.AllowUnsandboxed)", sandbox.Unavailable(sctx)))
	}
	return errors.Join(errs...)
}
