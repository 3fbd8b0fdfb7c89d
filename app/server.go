package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/verify"
)

// server is the App: the webhook handler, and River's client with the
// announce and verify workers on the database.
type server struct {
	cfg     Config
	log     *slog.Logger
	q       queue
	replica string
	metrics *Metrics
	clients *githubapi.Apps
	verify  VerifyFunc
	checks  []string
	bot     string // the comment author

	bodies    *bodyBudget // webhook body bytes held at once
	stopping  atomic.Bool
	started   atomic.Bool
	drainOnce sync.Once
	drainErr  error
	closeOnce sync.Once
	// lock is the flock on the data folder (lockDataDir); closeQueue ends it.
	lock    *os.File
	ctx     context.Context // stopped by drain after the grace
	stop    context.CancelCauseFunc
	running atomic.Int64 // verifications that run in this process
	// publishBudget makes the context of one publishing step; nil:
	// publishTimeout from when the step starts. Tests replace it.
	publishBudget func(context.Context) (context.Context, context.CancelFunc)
	// publishTries is how many times one process tries to publish a
	// finished verification; 0: maxPublishTries.
	publishTries int
	// publishDelay is the wait before the next try; 0:
	// publishRetryDelay. Tests replace it.
	publishDelay time.Duration
	// admitWait bounds the write of one delivery; 0: admitTimeout.
	// Tests shorten it.
	admitWait time.Duration
	// storeWait is the database retry window; 0: storeRetryWindow.
	storeWait time.Duration
	// working holds the ids of the River jobs this process's workers run
	// (see active).
	working sync.Map
	// beatEveryTest and deadAfterTest replace beatEvery and deadAfter
	// when set (tests).
	beatEveryTest, deadAfterTest time.Duration
	// bg waits for the heartbeat.
	bg sync.WaitGroup
}

// errShutdown is the cause of a run stopped by shutdown; the job goes
// back to the queue and runs again on a replica, or at the next start.
var errShutdown = errors.New("the server stops")

// newServer opens the database and River and prepares the server. start
// migrates the database and starts the work.
func newServer(cfg Config) (*server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	key, err := githubapi.ParseKey(cfg.PrivateKey)
	if err != nil {
		return nil, err
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Announcers <= 0 {
		cfg.Announcers = 4
	}
	if cfg.Clock == nil {
		cfg.Clock = githubapi.RealClock{}
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	replica := cfg.Replica
	if replica == "" {
		replica = dataDirReplica(cfg.DataDir)
	}
	s := &server{cfg: cfg, log: log.With("replica", replica), replica: replica, metrics: newMetrics(replica), verify: cfg.Verify, checks: cfg.Checks, bodies: newBodyBudget()}
	log = s.log
	base := cfg.HTTPTransport
	if base == nil {
		base = http.DefaultTransport
	}
	s.clients = &githubapi.Apps{
		AppID: cfg.AppID, Key: key, APIURL: cfg.APIURL,
		Base: countingTransport{base: base, m: s.metrics},
		NewTransport: func(b http.RoundTripper) *githubapi.Transport {
			return &githubapi.Transport{Base: b, Clock: cfg.Clock, WriteInterval: cfg.WriteInterval, Log: log}
		},
	}
	if s.verify == nil {
		s.verify = verify.Run
	}
	if s.checks == nil {
		for _, c := range verify.DefaultChecks() {
			s.checks = append(s.checks, c.Name())
		}
	}
	if cfg.AppSlug != "" {
		s.bot = cfg.AppSlug + "[bot]"
	}
	s.ctx, s.stop = context.WithCancelCause(context.Background())
	// One process per data folder, before the database opens and
	// before start removes the work folders.
	lock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	octx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	q, err := s.openQueue(octx)
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	s.q, s.lock = q, lock
	s.metrics.setQueue(s.depth)
	return s, nil
}

// openTimeout bounds the connection to the database at start-up.
const openTimeout = 30 * time.Second

// replicaFile in the data folder keeps the replica id of the processes
// that serve from it (one at a time: lockDataDir).
const replicaFile = "replica-id"

// dataDirReplica is the replica id kept in the data folder, made at the
// first start from the host name and a random suffix: a restarted
// process has its last process's id, and so takes up that process's jobs
// at once (rescueOwn). When the file cannot be kept, the id is new and
// the heartbeat of the other replicas (or River's rescuer) takes them up.
func dataDirReplica(dataDir string) string {
	path := filepath.Join(dataDir, replicaFile)
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" && len(id) <= 128 {
			return id
		}
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "serve"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	id := host + "-" + hex.EncodeToString(b[:])
	if err := os.MkdirAll(dataDir, 0o700); err == nil {
		_ = os.WriteFile(path, []byte(id+"\n"), 0o600)
	}
	return id
}

// depth is the queue depth over all replicas, and the runs of this one.
func (s *server) depth() (waiting, running int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	w, _, err := s.q.depth(ctx)
	if err != nil {
		s.log.Warn("read the queue depth", "error", err)
		w = -1
	}
	return w, int(s.running.Load())
}

// handler is the HTTP handler: POST /webhook (also POST /), GET /healthz,
// and GET /metrics unless Config.MetricsAddr serves it apart.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/webhook", s.handleWebhook)
	mux.HandleFunc("POST /{$}", s.handleWebhook)
	mux.HandleFunc("GET /healthz", s.healthz)
	if !s.cfg.metricsApart() {
		mux.Handle("GET /metrics", s.metrics)
	}
	return mux
}

// metricsHandler serves GET /metrics alone (Config.MetricsAddr).
func (s *server) metricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics)
	return mux
}

func (s *server) healthz(w http.ResponseWriter, _ *http.Request) {
	if s.stopping.Load() {
		http.Error(w, "stopping", http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

// start finds the App's login when needed, migrates the database,
// removes the work folders a stopped process left, and starts River: its
// workers take the jobs that wait, also those a stopped or killed
// process left (see verifyWorker).
func (s *server) start(ctx context.Context) error {
	if s.bot == "" {
		slug, err := s.appSlug(ctx)
		if err != nil {
			return err
		}
		s.bot = slug + "[bot]"
	}
	if err := s.q.migrate(ctx); err != nil {
		return err
	}
	if err := s.q.wakePublishes(ctx); err != nil {
		s.log.Warn("publish again what a stopped process could not", "error", err)
	}
	s.sweepWork()
	if err := nice.Set(s.cfg.Nice); err != nil {
		return err
	}
	if err := s.rescueOwn(ctx); err != nil {
		s.log.Warn("take up the jobs this replica's last process left", "error", err)
	}
	if err := s.q.start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	s.started.Store(true)
	s.bg.Add(1)
	go s.heartbeat()
	return nil
}

// pruneEvery is how often the leader forgets old delivery ids and
// pull-request heads (and once when it starts).
const pruneEvery = 6 * time.Hour

// appSlug asks GET /app with the App's JWT.
func (s *server) appSlug(ctx context.Context) (string, error) {
	in, err := s.clients.App()
	if err != nil {
		return "", err
	}
	app, _, err := in.Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("find the App's slug (GET /app; or set the App slug): %w", err)
	}
	if app.GetSlug() == "" {
		return "", errors.New("GET /app gave no slug; set the App slug")
	}
	return app.GetSlug(), nil
}

// drain stops taking work and lets the running verifications finish
// for the grace period, then stops them: they go back to the queue and
// run again on another replica or at the next start. It returns at once
// when nothing runs. From its start /healthz answers 503; deliveries are
// still stored (another replica, or the next start, takes them), so keep
// the listener open while drain runs (serve does). A second call returns
// the first's result.
func (s *server) drain(ctx context.Context) error {
	s.drainOnce.Do(func() { s.drainErr = s.drainNow(ctx) })
	return s.drainErr
}

func (s *server) drainNow(ctx context.Context) error {
	s.stopping.Store(true)
	if !s.started.Load() {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- s.q.stop(context.Background()) }()
	grace := time.NewTimer(s.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case err := <-done:
		return err
	case <-grace.C:
		s.log.Info("the grace period is over; the running verifications stop and run again later")
	case <-ctx.Done():
	}
	s.stop(errShutdown)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("stop the workers: %w", ctx.Err())
	}
}

// shutdown drains (see drain) and closes the database. Call it after the
// HTTP server has stopped; serve does both in that order. A second call
// does nothing.
func (s *server) shutdown(ctx context.Context) error {
	err := s.drain(ctx)
	s.stop(errShutdown)
	s.closeOnce.Do(s.closeQueue)
	return err
}

// closeQueue closes the queue, then ends the lock on the data folder.
func (s *server) closeQueue() {
	s.stop(errShutdown)
	s.bg.Wait()
	s.q.close()
	if s.lock != nil {
		_ = s.lock.Close()
	}
}

// workDir is the folder of one attempt's clone. Its name is a hash of the
// delivery id and the attempt, never the id: the id comes from an
// unsigned header. Each attempt has its own folder, so that a git process
// left over from a killed server cannot write into the clone of the next.
func (s *server) workDir(j *Job) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("work\x00%s\x00%d", j.Delivery, j.Attempts)))
	return filepath.Join(s.cfg.DataDir, "work", hex.EncodeToString(sum[:16]))
}

// sweepWork removes the work folders a stopped or killed server left.
// It runs at start, before any worker.
func (s *server) sweepWork() {
	root := filepath.Join(s.cfg.DataDir, "work")
	entries, err := os.ReadDir(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("list the work folders", "error", err)
		}
		return
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			s.log.Warn("remove a work folder left by a stopped server", "folder", e.Name(), "error", err)
		}
	}
}

func (s *server) removeWork(j *Job) {
	if err := os.RemoveAll(s.workDir(j)); err != nil {
		s.log.Warn("remove the work folder", "delivery", j.Delivery, "error", err)
	}
}
