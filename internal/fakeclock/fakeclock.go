// Package fakeclock is a githubapi.Clock for tests: time moves only when
// something sleeps, no sleep waits, and every wait is recorded.
package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock starts at a fixed time and moves by each Sleep.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// New returns a clock that reads now.
func New(now time.Time) *Clock { return &Clock{now: now} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock by d and records d when it is positive. It
// returns at once, with the context's error.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// Sleeps lists the positive waits asked for, in order.
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}
