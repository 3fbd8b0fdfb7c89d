package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/formula-code/template-verify/internal/loadclock"
)

// Progress receives one event when a check starts and one when it ends.
type Progress interface {
	Started(check string)
	Finished(check string, r Result)
}

// Runner runs checks concurrently, each with its own time limit.
type Runner struct {
	// Timeout returns the time limit of one check; zero means no limit.
	Timeout  func(check string) time.Duration
	Progress Progress // may be nil
}

// Run executes every check and returns their results in the order of checks.
// A check that panics or overruns its limit still yields a result.
func (r *Runner) Run(ctx context.Context, in *Input, list []Check) []Result {
	results := make([]Result, len(list))
	var wg sync.WaitGroup
	for i, c := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.runOne(ctx, in, c)
		}()
	}
	wg.Wait()
	return results
}

func (r *Runner) runOne(ctx context.Context, in *Input, c Check) (res Result) {
	name := c.Name()
	if r.Progress != nil {
		r.Progress.Started(name)
	}
	start := time.Now()
	var limit time.Duration
	if r.Timeout != nil {
		limit = r.Timeout(name)
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if limit > 0 {
		cctx, cancel = loadclock.WithTimeout(ctx, limit)
	}
	cctx = withWork(cctx, name, r.Progress) // AddWork, WorkDone
	defer func() {
		// Read the context's state before cancel, which would end it.
		ctxErr := cctx.Err()
		cancel()
		if p := recover(); p != nil {
			res = Result{
				Check:      name,
				Conclusion: Failure,
				Title:      "The check stopped with an internal error",
				Summary:    fmt.Sprintf("The %s check stopped with an internal error: %v", name, p),
				Details:    string(debug.Stack()),
			}
		}
		if res.Check == "" {
			res.Check = name
		}
		// A check that saw its context end reports it, whatever it returned.
		if ctxErr != nil && res.Conclusion != Failure {
			if errors.Is(ctxErr, context.DeadlineExceeded) && ctx.Err() == nil {
				res.Conclusion = TimedOut
				res.Title = fmt.Sprintf("The check ran past its time limit of %s%s", limit, loadclock.Wall(limit, time.Since(start)))
			} else {
				res.Conclusion = Cancelled
				res.Title = "The verification was cancelled"
			}
		}
		res.Duration = time.Since(start)
		if r.Progress != nil {
			r.Progress.Finished(name, res)
		}
	}()
	return c.Run(cctx, in)
}

// LineProgress writes one line per event to W, for terminals and CI logs.
type LineProgress struct {
	W  io.Writer
	mu sync.Mutex
}

// Started implements Progress.
func (p *LineProgress) Started(check string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.W, "%-8s started\n", check)
}

// Finished implements Progress.
func (p *LineProgress) Finished(check string, r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.W, "%-8s %-9s %6.2fs  %s\n", check, r.Conclusion, r.Duration.Seconds(), r.Title)
}
