// Package loadclock runs the tool's time limits on a clock that slows down
// while the machine is busy.
//
// The limits on a render, a restore scenario, a pytest run or a check stop
// code that loops or waits without end. They are not speed targets. On a
// machine shared with other work (a CI runner, an App server verifying
// several pull requests at once) a wall-clock limit fires on honest code
// that only waited for a CPU, and the report then blames the pull request
// for the machine's load. So a limit here counts quiet-machine seconds: a
// wall second counts as 1/s of a second, where the stretch s is the
// machine's one-minute load average per CPU, at least 1 and at most
// MaxStretch. On a quiet machine a 20 s limit is 20 s of wall time; at a
// load of 4 per CPU it is 80 s; it is never more than MaxStretch × 20 s, so
// a loop is still stopped.
package loadclock

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxStretch bounds how much longer than its nominal length a limit can
// last in wall time.
const MaxStretch = 10

// loadSource returns the one-minute load average; tests replace it.
var loadSource atomic.Pointer[func() (float64, error)]

func init() {
	f := readLoadAvg
	loadSource.Store(&f)
}

// readLoadAvg reads the first field of /proc/loadavg.
func readLoadAvg() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	field, _, _ := strings.Cut(string(b), " ")
	return strconv.ParseFloat(field, 64)
}

// Stretch is how many wall seconds count as one second now: the load
// average per CPU, between 1 and MaxStretch. Where the load cannot be
// read it is 1, so that the limit is plain wall time.
func Stretch() float64 {
	load, err := (*loadSource.Load())()
	if err != nil {
		return 1
	}
	return min(max(load/float64(runtime.NumCPU()), 1), MaxStretch)
}

// tick is how often a running limit reads the load: often enough that a
// short limit ends near its length, rarely enough to cost nothing.
func tick(d time.Duration) time.Duration {
	return min(max(d/20, 10*time.Millisecond), 500*time.Millisecond)
}

// Timer fires once, after d quiet-machine seconds (see the package doc).
type Timer struct {
	// C receives one value when the limit is reached.
	C    <-chan time.Time
	stop chan struct{}
	once sync.Once
}

// NewTimer starts a timer of d; d <= 0 fires at once.
func NewTimer(d time.Duration) *Timer {
	c := make(chan time.Time, 1)
	t := &Timer{C: c, stop: make(chan struct{})}
	go t.run(d, c)
	return t
}

func (t *Timer) run(d time.Duration, c chan<- time.Time) {
	left := d
	last := time.Now()
	every := tick(d)
	for left > 0 {
		// Sleep for what is left at today's stretch, at most a tick, and
		// count the tick at that stretch: one read of the load a tick.
		s := Stretch()
		timer := time.NewTimer(min(time.Duration(float64(left)*s), every))
		select {
		case <-t.stop:
			timer.Stop()
			return
		case now := <-timer.C:
			left -= time.Duration(float64(now.Sub(last)) / s)
			last = now
		}
	}
	c <- time.Now()
}

// Stop stops the timer; it reports nothing.
func (t *Timer) Stop() { t.once.Do(func() { close(t.stop) }) }

// WithTimeout is context.WithTimeout on this clock: the context ends after
// d quiet-machine seconds, and its Err is then context.DeadlineExceeded, as
// a deadline's is. It has no Deadline of its own (its end moves with the
// load): Deadline is the parent's.
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithCancel(parent)
	ctx := &limitCtx{Context: inner, parent: parent, limit: d}
	t := NewTimer(d)
	go func() {
		select {
		case <-t.C:
			ctx.expired.Store(true)
			cancel()
		case <-inner.Done():
			t.Stop()
		}
	}()
	return ctx, func() { t.Stop(); cancel() }
}

// limitCtx is a context whose Err says DeadlineExceeded when its limit,
// not its parent or its cancel, ended it.
type limitCtx struct {
	context.Context
	parent  context.Context
	limit   time.Duration
	expired atomic.Bool
}

// limitKey is the Value key of the nominal limit.
type limitKey struct{}

func (c *limitCtx) Value(key any) any {
	if key == (limitKey{}) {
		return c.limit
	}
	return c.Context.Value(key)
}

// Limit is the nominal length of the innermost WithTimeout limit of ctx,
// for messages ("its time limit of 2m0s").
func Limit(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(limitKey{}).(time.Duration)
	return d, ok
}

func (c *limitCtx) Err() error {
	err := c.Context.Err()
	if err == nil {
		return nil
	}
	if perr := c.parent.Err(); perr != nil {
		return perr
	}
	if c.expired.Load() {
		return context.DeadlineExceeded
	}
	return err
}

// Wall describes a limit that was reached after wall time, for a message:
// empty when wall is within a quarter of the limit, else how long it
// really took, so that a reader of "the time limit of 20s" who sees a
// run of a minute knows why.
func Wall(limit, wall time.Duration) string {
	if wall <= limit+limit/4 {
		return ""
	}
	return " (" + wall.Round(100*time.Millisecond).String() + " of wall time: limits stretch with the machine's load)"
}
