package checks

import (
	"context"
	"sync"
)

// WorkProgress is a Progress that also takes counts of a check's work,
// such as restore scenarios run of those planned. The Runner reports
// them to its Progress when the Progress implements it.
type WorkProgress interface {
	Progress
	// Work says that check has done done of total units (unit: "scenario
	// runs").
	Work(check string, done, total int, unit string)
}

type workKey struct{}

// workCounter adds up one check's work and passes it on.
type workCounter struct {
	check string
	p     WorkProgress

	mu          sync.Mutex
	done, total int
	unit        string
}

// withWork returns ctx with a counter of check's work for p.
func withWork(ctx context.Context, check string, p Progress) context.Context {
	wp, ok := p.(WorkProgress)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, workKey{}, &workCounter{check: check, p: wp})
}

// AddWork tells the progress lines that the check in ctx plans n more
// units of work. Without a progress it does nothing.
func AddWork(ctx context.Context, n int, unit string) {
	if c, ok := ctx.Value(workKey{}).(*workCounter); ok {
		c.mu.Lock()
		c.total += n
		c.unit = unit
		done, total := c.done, c.total
		c.mu.Unlock()
		c.p.Work(c.check, done, total, unit)
	}
}

// WorkDone tells the progress lines that the check in ctx finished n
// units of the work AddWork planned.
func WorkDone(ctx context.Context, n int) {
	if c, ok := ctx.Value(workKey{}).(*workCounter); ok {
		c.mu.Lock()
		c.done += n
		done, total, unit := c.done, c.total, c.unit
		c.mu.Unlock()
		c.p.Work(c.check, done, total, unit)
	}
}
