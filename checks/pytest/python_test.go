package pytest

import (
	"context"
	"errors"
	"path/filepath"
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
	write := func(body string) { writeExec(t, py, body) }
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
