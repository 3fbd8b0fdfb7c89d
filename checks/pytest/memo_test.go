package pytest

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeExec writes an executable file.
func writeExec(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func keepAll(int, error) bool { return true }

// TestMemoRunsOneComputationPerKeyAtATime: callers that start together
// wait for the one computation under way; another key does not wait.
func TestMemoRunsOneComputationPerKeyAtATime(t *testing.T) {
	t.Parallel()
	m := newMemo[string, int](time.Minute, 0, time.Now)
	var runs atomic.Int32
	release := make(chan struct{})
	slow := func() (int, error) { runs.Add(1); <-release; return 7, nil }
	var wg sync.WaitGroup
	got := make([]int, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = m.get(context.Background(), "a", slow, keepAll) })
	}
	if v, _ := m.get(context.Background(), "b", func() (int, error) { return 9, nil }, keepAll); v != 9 {
		t.Errorf("key b: %d while a runs, want 9", v)
	}
	time.AfterFunc(50*time.Millisecond, func() { close(release) })
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("%d computations for 8 callers of one key, want 1", n)
	}
	for i, v := range got {
		if v != 7 {
			t.Errorf("caller %d got %d, want 7", i, v)
		}
	}
}

// TestMemoWaiterLeavesOnCancel: a caller waiting for another's computation
// stops waiting when its own context ends.
func TestMemoWaiterLeavesOnCancel(t *testing.T) {
	t.Parallel()
	m := newMemo[string, int](time.Minute, 0, time.Now)
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	go func() {
		_, _ = m.get(context.Background(), "a", func() (int, error) { close(started); <-release; return 1, nil }, keepAll)
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.get(ctx, "a", func() (int, error) { return 2, nil }, keepAll); !errors.Is(err, context.Canceled) {
		t.Errorf("waiter with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestMemoKeepsWhatKeepAcceptsWithinItsBound: refused answers run again,
// and at the bound the oldest answer goes.
func TestMemoKeepsWhatKeepAcceptsWithinItsBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	m := newMemo[int, int](time.Hour, 3, func() time.Time { return now })
	runs := 0
	get := func(k int, keep bool) {
		_, _ = m.get(context.Background(), k, func() (int, error) { runs++; return k, nil }, func(int, error) bool { return keep })
		now = now.Add(time.Second)
	}
	get(1, false)
	get(1, false)
	if runs != 2 || len(m.m) != 0 {
		t.Errorf("refused answers: %d runs, %d kept; want 2, 0", runs, len(m.m))
	}
	for k := 1; k <= 4; k++ {
		get(k, true)
	}
	if len(m.m) != 3 {
		t.Errorf("%d kept, want the bound 3", len(m.m))
	}
	runs = 0
	get(1, true) // the oldest went
	get(4, true) // the newest stayed
	if runs != 1 {
		t.Errorf("%d runs, want 1: key 1 again, key 4 kept", runs)
	}
}
