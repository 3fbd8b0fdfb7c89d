package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// MaxHeaderBytes caps the request headers the App's HTTP server reads:
// GitHub's are a few kilobytes. A larger request gets 431 before the
// handler sees it. (The body is capped at MaxBody by the handler.)
const MaxHeaderBytes = 64 << 10

// stopHTTPTimeout bounds the wait for the answers in flight once the
// verifications have stopped.
const stopHTTPTimeout = 30 * time.Second

// httpServer returns the App's HTTP server for addr: its handler, time
// limits for headers and body, and MaxHeaderBytes.
func (s *server) httpServer(addr string) *http.Server {
	return &http.Server{
		Addr: addr, Handler: s.handler(),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: MaxHeaderBytes,
	}
}

// serve answers HTTP on ln until ctx ends, then stops in this order:
// drain (/healthz answers 503 while the running verifications finish for
// the grace period; at once when none runs), then the listener closes
// and the answers in flight end, then the database closes. It returns the
// listener's error, if any, and the stop's.
func (s *server) serve(ctx context.Context, ln net.Listener) error {
	hs := s.httpServer("")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var serveErr error
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			serveErr = fmt.Errorf("serve: %w", err)
		}
	case <-ctx.Done():
		s.log.Info("stopping: /healthz answers 503; running verifications get the grace period", "grace", s.cfg.ShutdownGrace)
	}
	dctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace+time.Minute)
	defer cancel()
	drainErr := s.drain(dctx)
	hctx, hcancel := context.WithTimeout(context.Background(), stopHTTPTimeout)
	defer hcancel()
	if err := hs.Shutdown(hctx); err != nil {
		_ = hs.Close()
	}
	return errors.Join(serveErr, drainErr, s.shutdown(hctx))
}

// ErrConfig marks an error of ListenAndServe that is the configuration's
// (serve exits with its usage code).
var ErrConfig = errors.New("the App's configuration")

// ListenAndServe runs the App until ctx ends: listen on addr (and on
// cfg.MetricsAddr) first, so that an address in use stops it before it
// touches the data folder; then newServer (an error wraps ErrConfig, or
// is ErrDataDirInUse when another process holds the data folder), start,
// and serve, which drains and shuts down in order when ctx ends.
func ListenAndServe(ctx context.Context, cfg Config, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	var mln net.Listener
	if cfg.metricsApart() {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			_ = ln.Close()
			return fmt.Errorf("listen for /metrics: %w", err)
		}
	}
	closeAll := func() {
		_ = ln.Close()
		if mln != nil {
			_ = mln.Close()
		}
	}
	srv, err := newServer(cfg)
	if err != nil {
		closeAll()
		if errors.Is(err, ErrDataDirInUse) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := srv.start(ctx); err != nil {
		closeAll()
		return errors.Join(err, srv.shutdown(context.Background()))
	}
	if mln != nil {
		ms := &http.Server{Handler: srv.metricsHandler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: MaxHeaderBytes}
		go func() { _ = ms.Serve(mln) }()
		defer ms.Close()
		srv.log.Info("/metrics listens apart", "addr", mln.Addr().String())
	}
	srv.log.Info("template-verify serve listens", "addr", ln.Addr().String(), "api", srv.cfg.APIURL, "workers", srv.cfg.Workers, "database", srv.databaseName())
	if err := srv.serve(ctx, ln); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

// databaseName says which database the server uses, without a password.
func (s *server) databaseName() string {
	if s.cfg.DatabaseURL == "" {
		return "sqlite " + SQLiteFile
	}
	return "postgres"
}
