package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
