package jinja

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// TestStopWorkersEndsTheIdleOnes: a render leaves its worker in the pool,
// alive; StopWorkers returns only when that process has exited, and a
// later render starts a new worker. Not parallel: StopWorkers ends the
// workers of the whole process.
func TestStopWorkersEndsTheIdleOnes(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"a.txt": "hi {{ name }}\n"})
	r := NewRenderer(DefaultLimits)
	if out, err := r.Render(context.Background(), e, "a.txt", map[string]any{"name": "x"}); err != nil || out != "hi x\n" {
		t.Fatalf("render: %q, %v", out, err)
	}
	r.Close()
	pool.mu.Lock()
	idle := len(pool.idle)
	var pids []int
	for _, w := range pool.idle {
		pids = append(pids, w.cmd.Process.Pid)
	}
	pool.mu.Unlock()
	if idle == 0 {
		t.Fatal("the pool keeps no idle worker after a render")
	}
	StopWorkers(5 * time.Second)
	running.mu.Lock()
	n := len(running.set)
	running.mu.Unlock()
	if n != 0 {
		t.Errorf("%d workers still run after StopWorkers", n)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker %d: kill 0 = %v, want ESRCH (it exited and was waited for)", pid, err)
		}
	}
	if out, err := e.Render("a.txt", map[string]any{"name": "y"}); err != nil || out != "hi y\n" {
		t.Errorf("render after StopWorkers: %q, %v", out, err)
	}
	StopWorkers(5 * time.Second)
}
