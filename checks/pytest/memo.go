package pytest

import (
	"context"
	"sync"
	"time"
)

// memo remembers the answers of an expensive computation per key for ttl,
// at most max of them (0: no bound; the oldest go first). One computation
// per key runs at a time: callers that ask for the same key meanwhile
// wait for its answer. The interpreter probe and the runner scenarios use
// it.
type memo[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[K]memoEntry[V]
	// flight holds, per key, a channel closed when the computation under
	// way ends.
	flight map[K]chan struct{}
}

type memoEntry[V any] struct {
	v   V
	err error
	at  time.Time
}

func newMemo[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *memo[K, V] {
	return &memo[K, V]{ttl: ttl, max: max, now: now, m: map[K]memoEntry[V]{}, flight: map[K]chan struct{}{}}
}

// get returns the kept answer for key when it is younger than ttl;
// otherwise it runs compute and keeps its answer when keep says so. A
// caller whose ctx ends while it waits for another's computation gets
// ctx's error.
func (c *memo[K, V]) get(ctx context.Context, key K, compute func() (V, error), keep func(V, error) bool) (V, error) {
	for {
		c.mu.Lock()
		if e, hit := c.m[key]; hit && c.now().Sub(e.at) < c.ttl {
			c.mu.Unlock()
			return e.v, e.err
		}
		busy, waiting := c.flight[key]
		if !waiting {
			done := make(chan struct{})
			c.flight[key] = done
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				delete(c.flight, key)
				c.mu.Unlock()
				close(done)
			}()
			break
		}
		c.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	v, err := compute()
	if keep(v, err) {
		c.put(key, v, err)
	}
	return v, err
}

// put keeps an answer, first dropping the expired ones and, at the bound,
// the oldest.
func (c *memo[K, V]) put(key K, v V, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, e := range c.m {
		if now.Sub(e.at) >= c.ttl {
			delete(c.m, k)
		}
	}
	for c.max > 0 && len(c.m) >= c.max {
		var oldest K
		first := true
		for k, e := range c.m {
			if first || e.at.Before(c.m[oldest].at) {
				oldest, first = k, false
			}
		}
		delete(c.m, oldest)
	}
	c.m[key] = memoEntry[V]{v: v, err: err, at: now}
}
