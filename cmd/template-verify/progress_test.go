package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakeclock"
)

// TestTickProgressLines: while checks run, each report has one line per
// running check with its time and, when it counts, its work done; a
// finished check has no more lines, and the ticker stops with the last.
func TestTickProgressLines(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	p := newTickProgress(&out, time.Hour) // the test calls report itself
	now := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }

	p.Started("restore")
	p.Started("pytest")
	p.Work("restore", 0, 38, "scenario runs")
	p.Work("restore", 12, 38, "scenario runs")
	now = now.Add(15 * time.Second)
	p.report(now)
	p.Finished("pytest", checks.Result{Conclusion: checks.Success, Duration: 15 * time.Second, Title: "ok"})
	now = now.Add(5 * time.Second)
	p.report(now)
	p.mu.Lock()
	stop := p.stop
	p.mu.Unlock()
	p.Finished("restore", checks.Result{Conclusion: checks.Success, Duration: 20 * time.Second, Title: "ok"})
	select {
	case <-stop:
	default:
		t.Error("the ticker goroutine is not told to stop after the last check")
	}

	want := []string{
		"restore  started",
		"pytest   started",
		"pytest   running 15s",
		"restore  running 15s: 12 of 38 scenario runs",
		"pytest   success    15.00s  ok",
		"restore  running 20s: 12 of 38 scenario runs",
		"restore  success    20.00s  ok",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgressInCI: in auto mode, a writer that is no terminal gets
// progress lines only when CI or GITHUB_ACTIONS is set, and then one every
// 15 s; --progress never and always win.
func TestProgressInCI(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cases := []struct {
		name   string
		mode   string
		getenv func(string) string
		every  time.Duration // 0: no progress
	}{
		{"auto, no CI", "auto", env(), 0},
		{"auto, CI=true", "auto", env("CI", "true"), ciProgressEvery},
		{"auto, CI=false", "auto", env("CI", "false"), 0},
		{"auto, GITHUB_ACTIONS=true", "auto", env("GITHUB_ACTIONS", "true"), ciProgressEvery},
		{"never, CI=true", "never", env("CI", "true"), 0},
		{"always, no CI", "always", env(), progressEvery},
	}
	for _, tc := range cases {
		var out lockedBuffer
		p := progressFor(tc.mode, &out, tc.getenv)
		switch tp, _ := p.(*tickProgress); {
		case tc.every == 0 && p != nil:
			t.Errorf("%s: progress on, want off", tc.name)
		case tc.every != 0 && tp == nil:
			t.Errorf("%s: progress off, want every %s", tc.name, tc.every)
		case tc.every != 0 && tp.every != tc.every:
			t.Errorf("%s: a line every %s, want %s", tc.name, tp.every, tc.every)
		}
	}
}

// TestProgressTicksInCI: a check that runs a minute in CI gets a line at
// each tick of 15 s, with its time read from the clock. The ticks come
// from the test; the time from internal/fakeclock.
func TestProgressTicksInCI(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	p := progressFor("auto", &out, func(k string) string {
		if k == "GITHUB_ACTIONS" {
			return "true"
		}
		return ""
	}).(*tickProgress)
	clk := fakeclock.New(time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC))
	p.now = clk.Now
	ticks := make(chan time.Time)
	var asked time.Duration
	p.ticker = func(d time.Duration) (<-chan time.Time, func()) {
		asked = d
		return ticks, func() {}
	}
	p.Started("restore")
	p.Work("restore", 12, 38, "scenario runs")
	for range 4 {
		_ = clk.Sleep(context.Background(), ciProgressEvery)
		ticks <- clk.Now() // unbuffered: the loop has written the line before
	}
	ticks <- clk.Now() // the fourth line is written once this is taken
	p.mu.Lock()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	p.mu.Unlock()
	p.Finished("restore", checks.Result{Conclusion: checks.Success, Duration: time.Minute, Title: "ok"})
	if asked != 15*time.Second {
		t.Errorf("ticker every %s, want 15s", asked)
	}
	want := []string{
		"restore  started",
		"restore  running 15s: 12 of 38 scenario runs",
		"restore  running 30s: 12 of 38 scenario runs",
		"restore  running 45s: 12 of 38 scenario runs",
		"restore  running 1m0s: 12 of 38 scenario runs",
	}
	if len(lines) < len(want) || strings.Join(lines[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant first:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
