package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// maxAdmitBatch is the most deliveries one admit transaction holds.
const maxAdmitBatch = 64

// errQueueClosed answers an admit that came after the queue closed.
var errQueueClosed = errors.New("the queue is closed")

// admitRequest is one delivery that waits to be written.
type admitRequest struct {
	ctx  context.Context
	keys []string
	job  *Job
	// answer gets the delivery's result, once; it has room for it, so
	// that the writer never waits for a handler that stopped waiting.
	answer chan error
}

// admitter is group commit for the webhook's writes on SQLite. Each
// delivery needs one small transaction (its ids, a duplicate check, its
// announce job), and on SQLite they all go through the one connection, one
// after the other, each with its own commit and River preparing its
// insert again. So one goroutine writes the deliveries that wait in one
// transaction: while it writes a batch, the next one gathers. At a low
// rate a batch is one delivery, written at once; nothing waits for a
// batch to fill.
type admitter struct {
	requests chan *admitRequest
	// write writes a batch and answers each of its requests.
	write    func(batch []*admitRequest)
	stopping chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
}

// newAdmitter starts the writer goroutine; close stops it.
func newAdmitter(write func(batch []*admitRequest)) *admitter {
	a := &admitter{
		requests: make(chan *admitRequest, 4*maxAdmitBatch),
		write:    write,
		stopping: make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go a.loop()
	return a
}

// admit hands the delivery to the writer and waits for its result, or
// for ctx. A delivery whose ctx ends while its batch is written may still
// be stored: its sender is answered 503, and the redelivery is then a
// duplicate, so nothing is lost or queued twice.
func (a *admitter) admit(ctx context.Context, keys []string, j *Job) error {
	r := &admitRequest{ctx: ctx, keys: keys, job: j, answer: make(chan error, 1)}
	select {
	case <-a.stopping:
		return errQueueClosed
	default:
	}
	select {
	case a.requests <- r:
	case <-ctx.Done():
		return fmt.Errorf("wait to store the delivery: %w", context.Cause(ctx))
	case <-a.stopping:
		return errQueueClosed
	}
	select {
	case err := <-r.answer:
		return err
	case <-ctx.Done():
		return fmt.Errorf("store the delivery: %w", context.Cause(ctx))
	case <-a.stopped:
		// The writer answers every request it took before it stops.
		select {
		case err := <-r.answer:
			return err
		default:
			return errQueueClosed
		}
	}
}

// loop writes what waits, a batch at a time, until close.
func (a *admitter) loop() {
	defer close(a.stopped)
	for {
		// A close is seen before what waits: it stops after the batch
		// that was being written.
		select {
		case <-a.stopping:
			a.refuseWaiting()
			return
		default:
		}
		var first *admitRequest
		select {
		case first = <-a.requests:
		case <-a.stopping:
			a.refuseWaiting()
			return
		}
		batch := []*admitRequest{first}
	gather:
		for len(batch) < maxAdmitBatch {
			select {
			case r := <-a.requests:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		live := batch[:0]
		for _, r := range batch {
			if err := r.ctx.Err(); err != nil {
				// Its handler answered already: do not store it.
				r.answer <- fmt.Errorf("wait to store the delivery: %w", context.Cause(r.ctx))
				continue
			}
			live = append(live, r)
		}
		if len(live) > 0 {
			a.write(live)
		}
	}
}

// refuseWaiting answers the requests still queued at close.
func (a *admitter) refuseWaiting() {
	for {
		select {
		case r := <-a.requests:
			r.answer <- errQueueClosed
		default:
			return
		}
	}
}

// close stops the writer after the batch it writes, and answers what
// still waits with errQueueClosed.
func (a *admitter) close() {
	a.stopOnce.Do(func() { close(a.stopping) })
	<-a.stopped
}
