package main

import (
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// TestTickProgressLines: while checks run, each report has one line per
// running check with its time and, when it counts, its work done; a
// finished check has no more lines, and the ticker stops with the last.
func TestTickProgressLines(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	p := newTickProgress(&out)
	p.every = time.Hour // the test calls report itself
	now := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }

	p.Started("restore")
	p.Started("pytest")
	p.Work("restore", 0, 38, "scenario runs")
	p.Work("restore", 12, 38, "scenario runs")
	now = now.Add(15 * time.Second)
	p.report()
	p.Finished("pytest", checks.Result{Conclusion: checks.Success, Duration: 15 * time.Second, Title: "ok"})
	now = now.Add(5 * time.Second)
	p.report()
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
