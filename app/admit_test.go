package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// blockedWriter is an admitter's write whose first batch waits for
// release, so that the requests sent meanwhile queue up. It answers each
// request with the error named by its first key ("" is nil).
type blockedWriter struct {
	mu       sync.Mutex
	batches  [][]string // the first key of each request, per batch
	entered  chan struct{}
	release  chan struct{}
	answerOf map[string]error
}

func newBlockedWriter() *blockedWriter {
	return &blockedWriter{entered: make(chan struct{}), release: make(chan struct{}), answerOf: map[string]error{}}
}

func (w *blockedWriter) write(batch []*admitRequest) {
	w.mu.Lock()
	first := len(w.batches) == 0
	var keys []string
	for _, r := range batch {
		keys = append(keys, r.keys[0])
	}
	w.batches = append(w.batches, keys)
	w.mu.Unlock()
	if first {
		close(w.entered)
		<-w.release
	}
	for _, r := range batch {
		w.mu.Lock()
		err := w.answerOf[r.keys[0]]
		w.mu.Unlock()
		r.answer <- err
	}
}

func (w *blockedWriter) seen() [][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]string(nil), w.batches...)
}

// waitQueued waits until n requests wait in a's channel. It waits for a
// state, not for a time: only the test's deadline bounds it.
func waitQueued(t *testing.T, a *admitter, n int) {
	t.Helper()
	for len(a.requests) < n {
		time.Sleep(time.Millisecond)
	}
}

// TestAdmitterWritesWhatWaitsInOneBatch: the deliveries that arrive
// while a batch is written are written together next, each gets its own
// answer, and a delivery whose sender gave up before its batch is not
// written.
func TestAdmitterWritesWhatWaitsInOneBatch(t *testing.T) {
	w := newBlockedWriter()
	errTaken := errors.New("taken")
	w.answerOf["d3"] = errTaken
	a := newAdmitter(w.write)
	defer a.close()
	ctx := context.Background()

	firstDone := make(chan error, 1)
	go func() { firstDone <- a.admit(ctx, []string{"d0"}, nil) }()
	<-w.entered

	answers := make([]chan error, 6)
	for i := 1; i <= 5; i++ {
		answers[i] = make(chan error, 1)
		go func() { answers[i] <- a.admit(ctx, []string{fmt.Sprintf("d%d", i)}, nil) }()
		waitQueued(t, a, i)
	}
	gaveUp, cancel := context.WithCancel(ctx)
	gaveUpDone := make(chan error, 1)
	go func() { gaveUpDone <- a.admit(gaveUp, []string{"gave-up"}, nil) }()
	waitQueued(t, a, 6)
	cancel()
	if err := <-gaveUpDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled delivery got %v, want context.Canceled", err)
	}
	close(w.release)

	if err := <-firstDone; err != nil {
		t.Fatalf("first delivery: %v", err)
	}
	for i := 1; i <= 5; i++ {
		err := <-answers[i]
		want := error(nil)
		if i == 3 {
			want = errTaken
		}
		if !errors.Is(err, want) || (want == nil && err != nil) {
			t.Errorf("delivery d%d got %v, want %v", i, err, want)
		}
	}
	got := w.seen()
	if len(got) != 2 || len(got[0]) != 1 || len(got[1]) != 5 {
		t.Fatalf("batches %v, want [[d0] [d1 … d5]]", got)
	}
	for _, k := range got[1] {
		if k == "gave-up" {
			t.Fatalf("the cancelled delivery was written: %v", got)
		}
	}
}

// TestAdmitterClose: a delivery that waits when the queue closes, and
// one that comes after, get errQueueClosed; close waits for the batch
// being written.
func TestAdmitterClose(t *testing.T) {
	w := newBlockedWriter()
	a := newAdmitter(w.write)
	ctx := context.Background()
	firstDone := make(chan error, 1)
	go func() { firstDone <- a.admit(ctx, []string{"d0"}, nil) }()
	<-w.entered
	waiting := make(chan error, 1)
	go func() { waiting <- a.admit(ctx, []string{"d1"}, nil) }()
	waitQueued(t, a, 1)
	closed := make(chan struct{})
	go func() { a.close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("close returned while a batch was written")
	case <-time.After(50 * time.Millisecond):
	}
	close(w.release)
	<-closed
	if err := <-firstDone; err != nil {
		t.Fatalf("the batch being written: %v", err)
	}
	if err := <-waiting; !errors.Is(err, errQueueClosed) {
		t.Fatalf("a waiting delivery got %v, want errQueueClosed", err)
	}
	if err := a.admit(ctx, []string{"d2"}, nil); !errors.Is(err, errQueueClosed) {
		t.Fatalf("a delivery after close got %v, want errQueueClosed", err)
	}
	if got := w.seen(); len(got) != 1 {
		t.Fatalf("batches after close: %v", got)
	}
}

// batchWriter is the batch write of either driver's queue.
type batchWriter interface {
	admitTx(ctx context.Context, batch []*admitRequest) ([]error, error)
}

// TestAdmitBatchKeepsEachDeliverysAnswer writes, in one transaction,
// deliveries that repeat one another's id or body, and checks that each
// gets the answer it would get alone: a duplicate leaves none of its keys
// recorded, a delivery of a queued head leaves its keys, and only new
// deliveries queue an announce job.
func TestAdmitBatchKeepsEachDeliverysAnswer(t *testing.T) {
	forDrivers(t, func(t *testing.T, h *harness) {
		h.offline(func(q queue) {
			w := q.(batchWriter)
			ctx := context.Background()
			job := func(delivery string, pr int, head string) *Job {
				return &Job{Delivery: delivery, Event: "pull_request", Owner: "o", Repo: "r", PR: pr, HeadSHA: head, BaseSHA: "b", BaseRef: "main", Author: "a"}
			}
			req := func(j *Job, keys ...string) *admitRequest {
				return &admitRequest{ctx: ctx, keys: keys, job: j, answer: make(chan error, 1)}
			}
			write := func(batch ...*admitRequest) []error {
				t.Helper()
				res, err := w.admitTx(ctx, batch)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			first := job("d1", 1, "aaaa")
			got := write(
				req(first, "d1", "body:1"),
				req(job("d2", 2, "bbbb"), "d2", "body:1"), // body of d1
				req(job("d1", 3, "cccc"), "d1", "body:2"), // id of d1
				req(nil, "d3", "body:3"),                  // ignored event
				req(job("d4", 4, "dddd"), "d4", "body:4"),
			)
			want := []error{nil, errDuplicate, errDuplicate, nil, nil}
			for i := range want {
				if !errors.Is(got[i], want[i]) || (want[i] == nil && got[i] != nil) {
					t.Errorf("delivery %d: %v, want %v", i, got[i], want[i])
				}
			}
			if n, err := q.unfinished(ctx); err != nil || n != 2 {
				t.Fatalf("announce jobs queued: %d (%v), want 2", n, err)
			}
			// d2 repeated a body: its id stays free. d3 was recorded.
			got = write(req(nil, "d2", "body:5"), req(nil, "d3", "body:6"))
			if got[0] != nil || !errors.Is(got[1], errDuplicate) {
				t.Fatalf("after the batch: d2 %v (want nil), d3 %v (want duplicate)", got[0], got[1])
			}
			// A push of a head that is queued already: the job is not
			// stored, the delivery is remembered.
			if _, _, err := q.enqueueVerify(ctx, first); err != nil {
				t.Fatal(err)
			}
			got = write(req(job("d6", 1, "AAAA"), "d6", "body:7"))
			if !errors.Is(got[0], errSameHead) {
				t.Fatalf("a delivery of the queued head: %v, want errSameHead", got[0])
			}
			got = write(req(nil, "d6", "body:8"))
			if !errors.Is(got[0], errDuplicate) {
				t.Fatalf("the id of a same-head delivery was not kept: %v", got[0])
			}
		})
	})
}
