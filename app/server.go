package app

import (
	"context"
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
	"sync"
	"sync/atomic"
	"time"

	"github.com/formula-code/template-verify/internal/githubapi"
	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/verify"
)

// server is the App: the webhook handler, the store, the announcers and
// the workers.
type server struct {
	cfg     Config
	log     *slog.Logger
	store   *Store
	metrics *Metrics
	clients *githubapi.Apps
	verify  VerifyFunc
	checks  []string
	bot     string // the comment author

	bodies   *bodyBudget // webhook body bytes held at once
	stopping atomic.Bool
	quit     chan struct{} // closed by drain: the announcers stop
	quitOnce sync.Once
	ctx      context.Context // stopped by shutdown after the grace
	stop     context.CancelCauseFunc
	wg       sync.WaitGroup
	announce func(delivery string)
	annCh    chan string
	sched    *scheduler
	// publishBudget makes the context of one publishing step; nil:
	// publishTimeout from when the step starts. Tests replace it.
	publishBudget func(context.Context) (context.Context, context.CancelFunc)
	// publishTries is how many times one process tries to publish a
	// finished verification; 0: maxPublishTries.
	publishTries int
	// publishWait waits before the next try; nil: publishRetryDelay on
	// the clock. Tests replace it.
	publishWait func(context.Context) error
}

// errShutdown is the cause of a run stopped by shutdown; the job stays in
// the store and runs again at the next start.
var errShutdown = errors.New("the server stops")

// newServer opens the store and prepares the server. start starts its work.
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
	st, err := openStore(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	s := &server{cfg: cfg, log: log, store: st, metrics: newMetrics(), verify: cfg.Verify, checks: cfg.Checks, bodies: newBodyBudget()}
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
		s.verify = defaultVerify
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
	s.quit = make(chan struct{})
	s.annCh = make(chan string, 4096)
	s.announce = func(d string) {
		if s.stopping.Load() {
			// The job stays in the store as accepted; the next start
			// announces it.
			return
		}
		select {
		case s.annCh <- d:
		default:
			// The channel is full: the job stays in the store as
			// accepted; the sweep picks it up.
			s.log.Warn("announce queue full; the job waits for the next sweep", "delivery", d)
		}
	}
	s.sched = newScheduler()
	s.metrics.queue = s.sched.depth
	return s, nil
}

// handler is the HTTP handler: POST /webhook (also POST /), GET /healthz,
// GET /metrics.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/webhook", s.handleWebhook)
	mux.HandleFunc("POST /{$}", s.handleWebhook)
	mux.HandleFunc("GET /healthz", s.healthz)
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

// start finds the App's login when needed, takes up the work left in the
// store, and starts the announcers and workers.
func (s *server) start(ctx context.Context) error {
	if s.bot == "" {
		slug, err := s.appSlug(ctx)
		if err != nil {
			return err
		}
		s.bot = slug + "[bot]"
	}
	if err := s.store.PruneDeliveries(time.Now()); err != nil {
		s.log.Warn("prune old delivery ids", "error", err)
	}
	jobs, err := s.store.Jobs()
	if err != nil {
		return err
	}
	s.sweepWork()
	if err := nice.Set(s.cfg.Nice); err != nil {
		return err
	}
	for i := 0; i < s.cfg.Announcers; i++ {
		s.wg.Add(1)
		go s.announcer()
	}
	s.wg.Add(1)
	go s.pruner()
	for i := 0; i < s.cfg.Workers; i++ {
		s.wg.Add(1)
		go s.worker()
	}
	for _, j := range jobs {
		switch j.State {
		case StateAccepted:
			s.announce(j.Delivery)
		case StateQueued:
			s.sched.add(j)
		case StatePublish:
			s.log.Info("a finished verification was not published; it is published again", append(jobAttrs(j), "delivery", j.Delivery)...)
			s.sched.retry(j)
		case StateRunning:
			s.log.Info("a run stopped with the server; it runs again", append(jobAttrs(j), "delivery", j.Delivery)...)
			s.recoverRuns(ctx, j)
			s.resume(j)
		}
	}
	return nil
}

// pruneEvery is how often a running server forgets old delivery ids,
// body hashes and head claims (start does it too).
const pruneEvery = 6 * time.Hour

// pruner prunes the store every pruneEvery until drain.
func (s *server) pruner() {
	defer s.wg.Done()
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			if err := s.store.PruneDeliveries(time.Now()); err != nil {
				s.log.Warn("prune old delivery ids", "error", err)
			}
		}
	}
}

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

// drain stops taking work and lets the running verifications finish for
// the grace period, then stops them (they run again at the next start).
// It returns at once when nothing runs. From its start /healthz answers
// 503; deliveries are still stored (they run after the next start), so
// keep the listener open while drain runs (serve does).
func (s *server) drain(ctx context.Context) error {
	s.stopping.Store(true)
	s.quitOnce.Do(func() { close(s.quit) })
	s.sched.close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	grace := time.NewTimer(s.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
		return nil
	case <-grace.C:
		s.log.Info("the grace period is over; the running verifications stop and run again at the next start")
	case <-ctx.Done():
	}
	s.stop(errShutdown)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop the workers: %w", ctx.Err())
	}
}

// shutdown drains (see drain) and closes the store. Call it after the
// HTTP server has stopped; serve does both in that order. A second call
// does nothing.
func (s *server) shutdown(ctx context.Context) error {
	err := s.drain(ctx)
	s.stop(errShutdown)
	return errors.Join(err, s.store.Close())
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
