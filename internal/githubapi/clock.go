package githubapi

import (
	"context"
	"time"
)

// Clock tells the time and waits. Tests replace it so that no test waits
// for real.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done, and returns ctx.Err() in the
	// second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
