package main

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// progressEvery is how often a running check gets a progress line on a
// terminal.
const progressEvery = 5 * time.Second

// ciProgressEvery is how often it gets one in a CI log (CI or
// GITHUB_ACTIONS set, stderr no terminal): often enough that a run of
// several minutes shows it is alive, rarely enough not to fill the log.
const ciProgressEvery = 15 * time.Second

// tickProgress writes a line when a check starts and ends, like
// checks.LineProgress, and every few seconds one line per running check:
// how long it has run and, when the check counts its work, how much is
// done ("restore  running 15s: 12 of 38 scenario runs").
type tickProgress struct {
	w     io.Writer
	every time.Duration
	now   func() time.Time
	// ticker starts the ticks of a run: a channel and its stop function
	// (time.NewTicker; tests send the ticks themselves).
	ticker func(time.Duration) (<-chan time.Time, func())

	mu      sync.Mutex
	running map[string]*running
	stop    chan struct{} // closed when no check runs
}

type running struct {
	start       time.Time
	done, total int
	unit        string
}

var _ checks.WorkProgress = (*tickProgress)(nil)

func newTickProgress(w io.Writer, every time.Duration) *tickProgress {
	return &tickProgress{w: w, every: every, now: time.Now, ticker: realTicker, running: map[string]*running{}}
}

func realTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// Started implements checks.Progress.
func (p *tickProgress) Started(check string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%-8s started\n", check)
	p.running[check] = &running{start: p.now()}
	if p.stop == nil {
		p.stop = make(chan struct{})
		ticks, stopTicks := p.ticker(p.every)
		go p.loop(ticks, stopTicks, p.stop)
	}
}

// Finished implements checks.Progress.
func (p *tickProgress) Finished(check string, r checks.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%-8s %-9s %6.2fs  %s\n", check, r.Conclusion, r.Duration.Seconds(), r.Title)
	delete(p.running, check)
	if len(p.running) == 0 && p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

// Work implements checks.WorkProgress.
func (p *tickProgress) Work(check string, done, total int, unit string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.running[check]; r != nil {
		r.done, r.total, r.unit = done, total, unit
	}
}

func (p *tickProgress) loop(ticks <-chan time.Time, stopTicks func(), stop <-chan struct{}) {
	defer stopTicks()
	for {
		select {
		case now := <-ticks:
			p.report(now)
		case <-stop:
			return
		}
	}
}

// report writes one line per running check, in name order, with the
// time each has run until now (the tick's time).
func (p *tickProgress) report(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]string, 0, len(p.running))
	for n := range p.running {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		r := p.running[n]
		line := fmt.Sprintf("%-8s running %s", n, now.Sub(r.start).Round(time.Second))
		if r.total > 0 {
			line += fmt.Sprintf(": %d of %d %s", r.done, r.total, r.unit)
		}
		fmt.Fprintln(p.w, line)
	}
}
