// The pool of idle render workers, and the bounded buffer of a worker's stderr.

package jinja

import (
	"sync"
	"time"
)

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
