// The pool of idle render workers, and the bounded buffer of a worker's stderr.

package jinja

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// workerSet is the set of worker processes that have not exited.
type workerSet struct {
	mu  sync.Mutex
	set map[*worker]struct{}
}

// running holds every worker process until it exits, for StopWorkers.
var running = workerSet{set: map[*worker]struct{}{}}

func (s *workerSet) add(w *worker) {
	s.mu.Lock()
	s.set[w] = struct{}{}
	s.mu.Unlock()
}

func (s *workerSet) remove(w *worker) {
	s.mu.Lock()
	delete(s.set, w)
	s.mu.Unlock()
}

// StopWorkers ends every render worker process and waits until each has
// exited: the idle ones and those being stopped (an idle worker lives
// for poolIdle, a stopped one until it reads the end of its input). A
// worker that has not exited within grace is killed. A program calls it
// before it exits, so that no worker outlives it; a later Render starts
// a new worker.
func StopWorkers(grace time.Duration) {
	pool.mu.Lock()
	pool.idle = nil
	pool.mu.Unlock()
	running.mu.Lock()
	ws := slices.Collect(maps.Keys(running.set))
	running.mu.Unlock()
	for _, w := range ws {
		_ = w.stdin.Close()
	}
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for _, w := range ws {
		select {
		case <-w.exited:
		case <-deadline.C:
			w.kill()
			// The deadline has fired: the workers left are killed at once.
			deadline.Reset(0)
		}
	}
}

func getWorker(mem int64) (*worker, error) {
	pool.mu.Lock()
	for i := len(pool.idle) - 1; i >= 0; i-- {
		w := pool.idle[i]
		if w.mem == mem && !w.dead() {
			pool.idle = append(pool.idle[:i], pool.idle[i+1:]...)
			pool.mu.Unlock()
			return w, nil
		}
	}
	pool.mu.Unlock()
	return startWorker(mem)
}

func putWorker(w *worker) {
	if w.dead() || w.bytes > poolBytes {
		w.stop()
		return
	}
	pool.mu.Lock()
	if len(pool.idle) >= poolSize {
		pool.mu.Unlock()
		w.stop()
		return
	}
	pool.idle = append(pool.idle, w)
	pool.mu.Unlock()
	time.AfterFunc(poolIdle, func() {
		pool.mu.Lock()
		for i, x := range pool.idle {
			if x == w {
				pool.idle = append(pool.idle[:i], pool.idle[i+1:]...)
				pool.mu.Unlock()
				w.stop()
				return
			}
		}
		pool.mu.Unlock()
	})
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}
