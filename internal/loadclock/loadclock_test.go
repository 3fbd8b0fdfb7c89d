package loadclock

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// setLoad makes the load average read as perCPU × the CPUs, for this test.
func setLoad(t *testing.T, perCPU func() float64) {
	t.Helper()
	old := loadSource.Load()
	f := func() (float64, error) { return perCPU() * float64(runtime.NumCPU()), nil }
	loadSource.Store(&f)
	t.Cleanup(func() { loadSource.Store(old) })
}

func fixed(v float64) func() float64 { return func() float64 { return v } }

func TestStretch(t *testing.T) {
	for _, tc := range []struct {
		perCPU float64
		want   float64
	}{
		{0, 1}, {0.5, 1}, {1, 1}, {3, 3}, {MaxStretch, MaxStretch}, {100, MaxStretch},
	} {
		setLoad(t, fixed(tc.perCPU))
		if got := Stretch(); got != tc.want {
			t.Errorf("load %.1f per CPU: stretch %.2f, want %.2f", tc.perCPU, got, tc.want)
		}
	}
	broken := func() (float64, error) { return 0, errors.New("no /proc") }
	old := loadSource.Load()
	loadSource.Store(&broken)
	defer loadSource.Store(old)
	if got := Stretch(); got != 1 {
		t.Errorf("unreadable load: stretch %.2f, want 1 (plain wall time)", got)
	}
}

func TestReadLoadAvg(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/loadavg is Linux's")
	}
	load, err := readLoadAvg()
	if err != nil || load < 0 {
		t.Fatalf("readLoadAvg() = %v, %v", load, err)
	}
}

// A timer never fires before its wall time times the stretch: the bound
// holds however slow the machine running the test is.
func TestTimerWaitsTheStretchedTime(t *testing.T) {
	for _, perCPU := range []float64{0, 4} {
		setLoad(t, fixed(perCPU))
		const d = 100 * time.Millisecond
		start := time.Now()
		tm := NewTimer(d)
		<-tm.C
		want := time.Duration(float64(d) * max(perCPU, 1))
		if got := time.Since(start); got < want {
			t.Errorf("load %.0f per CPU: fired after %v, want at least %v", perCPU, got, want)
		}
	}
}

// The stretch is read while the timer runs: a limit that started on a busy
// machine ends soon after the machine is quiet again.
func TestTimerFollowsTheLoad(t *testing.T) {
	var busy = make(chan bool, 1)
	busy <- true
	setLoad(t, func() float64 {
		b := <-busy
		busy <- b
		if b {
			return MaxStretch
		}
		return 0
	})
	tm := NewTimer(time.Second) // 10 s of wall time while busy
	select {
	case <-tm.C:
		t.Fatal("the timer fired while the machine was busy, before 1 s of its 10 s")
	case <-time.After(200 * time.Millisecond):
	}
	<-busy
	busy <- false
	select {
	case <-tm.C:
	case <-time.After(time.Minute):
		t.Fatal("the timer did not fire within a minute after the load fell")
	}
}

func TestTimerStop(t *testing.T) {
	setLoad(t, fixed(0))
	tm := NewTimer(20 * time.Millisecond)
	tm.Stop()
	tm.Stop() // twice is fine
	select {
	case <-tm.C:
		t.Fatal("a stopped timer fired")
	case <-time.After(200 * time.Millisecond):
	}
}

func TestWithTimeout(t *testing.T) {
	setLoad(t, fixed(0))
	t.Run("limit", func(t *testing.T) {
		ctx, cancel := WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		<-ctx.Done()
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("Err() = %v, want DeadlineExceeded", ctx.Err())
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := WithTimeout(context.Background(), time.Hour)
		if ctx.Err() != nil {
			t.Fatalf("Err() = %v before the end", ctx.Err())
		}
		cancel()
		<-ctx.Done()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("Err() = %v, want Canceled", ctx.Err())
		}
	})
	t.Run("parent", func(t *testing.T) {
		parent, stop := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer stop()
		ctx, cancel := WithTimeout(parent, time.Hour)
		defer cancel()
		<-ctx.Done()
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("Err() = %v, want the parent's DeadlineExceeded", ctx.Err())
		}
		if _, ok := ctx.Deadline(); !ok {
			t.Error("Deadline() lost the parent's deadline")
		}
		if d, ok := Limit(ctx); !ok || d != time.Hour {
			t.Errorf("Limit() = %v, %v, want 1h0m0s", d, ok)
		}
	})
	t.Run("stretched", func(t *testing.T) {
		setLoad(t, fixed(MaxStretch))
		ctx, cancel := WithTimeout(context.Background(), time.Second)
		defer cancel()
		select {
		case <-ctx.Done():
			t.Fatalf("the context ended (%v) while the machine was busy, before 1 s of its 10 s", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	})
}

func TestWall(t *testing.T) {
	if got := Wall(20*time.Second, 21*time.Second); got != "" {
		t.Errorf("Wall(20s, 21s) = %q, want nothing", got)
	}
	if got, want := Wall(20*time.Second, 61*time.Second+30*time.Millisecond), " (1m1s of wall time: limits stretch with the machine's load)"; got != want {
		t.Errorf("Wall(20s, 61.03s) = %q, want %q", got, want)
	}
}
