package pytest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProbeCacheKeepsAnswersPerFile drives the cache with a counting probe
// and a fake clock: the interpreter runs again when its file changes, when
// the answer is older than probeTTL, and after a probe that gave no answer.
func TestProbeCacheKeepsAnswersPerFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	py := filepath.Join(dir, "python3")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(py, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("#!/bin/sh\n")
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	runs := 0
	answer := func() (string, error) { return "8.0.0", nil }
	c := newProbeCache(func(context.Context, string, string) (string, error) {
		runs++
		return answer()
	}, func() time.Time { return now })
	get := func() (string, error) { return c.get(context.Background(), py, dir) }

	steps := []struct {
		name     string
		before   func()
		wantRuns int
		wantErr  error
	}{
		{"first probe runs", nil, 1, nil},
		{"same file within the TTL is answered from the cache", func() { now = now.Add(probeTTL - time.Second) }, 1, nil},
		{"an answer older than the TTL runs again", func() { now = now.Add(time.Second) }, 2, nil},
		{"a rewritten file runs again", func() { write("#!/bin/sh\nexit 1\n"); answer = func() (string, error) { return "", errNoPytest } }, 3, errNoPytest},
		{"cannot import pytest is an answer, kept", nil, 3, errNoPytest},
		{"a timed-out probe is not kept", func() {
			write("#!/bin/sh\nsleep 9\n")
			answer = func() (string, error) { return "", context.DeadlineExceeded }
		}, 4, context.DeadlineExceeded},
		{"so the next run probes again", func() { answer = func() (string, error) { return "8.0.1", nil } }, 5, nil},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		_, err := get()
		if runs != s.wantRuns || !errors.Is(err, s.wantErr) {
			t.Errorf("%s: %d probe runs, err %v; want %d, %v", s.name, runs, err, s.wantRuns, s.wantErr)
		}
	}
	if v, _ := get(); v != "8.0.1" {
		t.Errorf("cached version %q, want 8.0.1", v)
	}
	if _, err := c.get(context.Background(), filepath.Join(dir, "missing"), dir); err != nil || runs != 6 {
		t.Errorf("a missing file: err %v, %d runs; want a probe run (its error is the probe's)", err, runs)
	}
}

// TestProbeCacheRunsOneProbeAtATime: checks that start together (the App's
// workers, parallel tests) wait for the one probe under way.
func TestProbeCacheRunsOneProbeAtATime(t *testing.T) {
	t.Parallel()
	py := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(py, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	release := make(chan struct{})
	c := newProbeCache(func(context.Context, string, string) (string, error) {
		runs.Add(1)
		<-release
		return "8.0.0", nil
	}, time.Now)
	var wg sync.WaitGroup
	versions := make([]string, 8)
	for i := range versions {
		wg.Go(func() { versions[i], _ = c.get(context.Background(), py, "") })
	}
	time.AfterFunc(50*time.Millisecond, func() { close(release) })
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("%d probes ran for 8 callers, want 1", n)
	}
	for i, v := range versions {
		if v != "8.0.0" {
			t.Errorf("caller %d got %q", i, v)
		}
	}
}

// TestProbeCacheWaiterLeavesOnCancel: a caller waiting for another's probe
// stops waiting when its own context ends.
func TestProbeCacheWaiterLeavesOnCancel(t *testing.T) {
	t.Parallel()
	py := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(py, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	c := newProbeCache(func(context.Context, string, string) (string, error) {
		close(started)
		<-release
		return "8.0.0", nil
	}, time.Now)
	go func() { _, _ = c.get(context.Background(), py, "") }()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.get(ctx, py, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("waiter with a cancelled context: %v, want context.Canceled", err)
	}
}
