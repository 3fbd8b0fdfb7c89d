package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// ListenAndServe answers on its address until the context ends, then
// stops cleanly; a bad configuration is ErrConfig and nothing listens.
func TestListenAndServe(t *testing.T) {
	t.Parallel()
	if err := ListenAndServe(context.Background(), Config{}, "127.0.0.1:0"); !errors.Is(err, ErrConfig) {
		t.Fatalf("empty config: %v, want ErrConfig", err)
	}
	gh := fakegithub.NewApp(t, 9, &appKey(t).PublicKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, Config{
			AppID: 9, PrivateKey: keyPEM(appKey(t)), WebhookSecret: []byte(testSecret), APIURL: gh.URL,
			DataDir: t.TempDir(),
			Verify:  func(context.Context, verify.Options) (*report.Report, error) { return nil, errors.New("not called") },
		}, addr)
	}()
	url := fmt.Sprintf("http://%s/healthz", addr)
	deadline := time.Now().Add(30 * time.Second)
	var last error
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		last = err
		if time.Now().After(deadline) {
			t.Fatalf("GET /healthz never answered 200: %v", last)
		}
		select {
		case err := <-done:
			t.Fatalf("ListenAndServe returned %v before the cancel", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stop: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ListenAndServe did not return after the cancel")
	}
	if _, err := http.Get(url); err == nil {
		t.Error("the listener is still open after the stop")
	}
}

// serveConfig is a configuration that ListenAndServe accepts, on data.
func serveConfig(t *testing.T, apiURL, data string) Config {
	return Config{
		AppID: 9, PrivateKey: keyPEM(appKey(t)), WebhookSecret: []byte(testSecret), APIURL: apiURL,
		DataDir: data,
		Verify:  func(context.Context, verify.Options) (*report.Report, error) { return nil, errors.New("not called") },
	}
}

// waitHealthy waits until GET /healthz at addr answers 200, or done ends.
func waitHealthy(t *testing.T, addr string, done <-chan error) {
	t.Helper()
	url := fmt.Sprintf("http://%s/healthz", addr)
	for range 3000 {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-done:
			t.Fatalf("ListenAndServe returned %v before it answered", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("GET /healthz never answered 200")
}

// TestListenFirst: serve on an address in use stops before it touches
// the data folder; the work folder a running server uses stays. Before,
// start removed DATA_DIR/work and then the listen failed.
func TestListenFirst(t *testing.T) {
	t.Parallel()
	gh := fakegithub.NewApp(t, 9, &appKey(t).PublicKey)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	data := t.TempDir()
	clone := filepath.Join(data, "work", "0123")
	if err := os.MkdirAll(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	err = ListenAndServe(context.Background(), serveConfig(t, gh.URL, data), taken.Addr().String())
	if err == nil || errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("serve on an address in use: %v, want a listen error", err)
	}
	if _, err := os.Stat(clone); err != nil {
		t.Errorf("the work folder of the running server: %v", err)
	}
}

// TestOneServePerDataDir: a second serve on the data folder of a running
// one stops at once with ErrDataDirInUse, which names the holder's pid,
// and the first keeps answering. Before, both took jobs from the SQLite
// queue, and the second removed the first's work folders.
func TestOneServePerDataDir(t *testing.T) {
	t.Parallel()
	gh := fakegithub.NewApp(t, 9, &appKey(t).PublicKey)
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan error, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	go func() { first <- ListenAndServe(ctx, serveConfig(t, gh.URL, data), addr) }()
	waitHealthy(t, addr, first)
	clone := filepath.Join(data, "work", "0123")
	if err := os.MkdirAll(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	sctx, scancel := context.WithCancel(context.Background())
	defer scancel()
	go func() { second <- ListenAndServe(sctx, serveConfig(t, gh.URL, data), "127.0.0.1:0") }()
	select {
	case err := <-second:
		if !errors.Is(err, ErrDataDirInUse) || errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), fmt.Sprintf("process %d holds", os.Getpid())) {
			t.Fatalf("second serve: %v, want ErrDataDirInUse naming process %d", err, os.Getpid())
		}
		t.Log(err)
	case <-time.After(time.Minute):
		t.Fatal("the second serve on the same data folder runs")
	}
	if _, err := os.Stat(clone); err != nil {
		t.Errorf("the first server's work folder: %v", err)
	}
	waitHealthy(t, addr, first)
	cancel()
	if err := <-first; err != nil {
		t.Fatalf("stop: %v", err)
	}
	// Stopped, the first lets a new serve take the folder.
	third := make(chan error, 1)
	tctx, tcancel := context.WithCancel(context.Background())
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	go func() { third <- ListenAndServe(tctx, serveConfig(t, gh.URL, data), addr) }()
	waitHealthy(t, addr, third)
	tcancel()
	if err := <-third; err != nil {
		t.Fatalf("stop the third: %v", err)
	}
}
