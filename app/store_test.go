package app

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func openTestStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Concurrent deliveries share commits, but each id is accepted once.
func TestStoreAcceptsEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir())
	const senders = 64
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted, dups := 0, 0
	for i := 0; i < senders; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("d-%d", i%8) // 8 ids, each sent 8 times
			err := s.Accept(id, time.Now(), &Job{Delivery: id, PR: i})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				accepted++
			case errors.Is(err, errDuplicate):
				dups++
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if accepted != 8 || dups != senders-8 {
		t.Fatalf("accepted %d, duplicates %d; want 8 and %d", accepted, dups, senders-8)
	}
	jobs, err := s.Jobs()
	if err != nil || len(jobs) != 8 {
		t.Fatalf("jobs %d (%v), want 8", len(jobs), err)
	}
}

// A write that fails does not take the writes committed with it down.
func TestStoreGroupSurvivesOneBadWrite(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir())
	bad := errors.New("bad write")
	release := make(chan struct{})
	held := make(chan struct{})
	// Hold the committer so that the next writes queue up into one group.
	go func() { _ = s.update(func(*bolt.Tx) error { close(held); <-release; return nil }) }()
	<-held
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i == 3 {
				errs[i] = s.update(func(*bolt.Tx) error { return bad })
				return
			}
			errs[i] = s.Put(&Job{Delivery: fmt.Sprintf("g-%d", i)})
		}(i)
	}
	waitUntil(t, 10*time.Second, "six writes queued behind the held one", func() bool { return len(s.writes) == len(errs) },
		func() string { return fmt.Sprintf("%d queued", len(s.writes)) })
	close(release)
	wg.Wait()
	for i, err := range errs {
		if i == 3 {
			if !errors.Is(err, bad) {
				t.Errorf("write 3: %v, want %v", err, bad)
			}
		} else if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	jobs, _ := s.Jobs()
	if len(jobs) != 5 {
		t.Fatalf("%d jobs stored, want 5", len(jobs))
	}
}

// Close waits for the writes already sent; later writes get an error, and
// what was written is there after reopening.
func TestStoreCloseKeepsWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if err := s.Accept(fmt.Sprintf("c-%d", i), time.Now(), &Job{Delivery: fmt.Sprintf("c-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if err := s.Put(&Job{Delivery: "late"}); !errors.Is(err, errStoreClosed) {
		t.Fatalf("write after close: %v, want %v", err, errStoreClosed)
	}
	s = openTestStore(t, dir)
	jobs, err := s.Jobs()
	if err != nil || len(jobs) != 20 {
		t.Fatalf("after reopen: %d jobs (%v), want 20", len(jobs), err)
	}
	if err := s.Accept("c-7", time.Now(), nil); !errors.Is(err, errDuplicate) {
		t.Fatalf("a delivery seen before the restart: %v, want duplicate", err)
	}
}

// Old delivery ids are forgotten, recent ones are kept.
func TestStorePruneDeliveries(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir())
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-deliveryTTL - time.Hour)
	for i := 0; i < 10; i++ {
		stamp := old
		if i == 4 || i == 9 {
			stamp = now.Add(-time.Hour)
		}
		if err := s.Accept(fmt.Sprintf("p-%d", i), stamp, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PruneDeliveries(now); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		err := s.Accept(fmt.Sprintf("p-%d", i), now, nil)
		kept := i == 4 || i == 9
		if kept != errors.Is(err, errDuplicate) {
			t.Errorf("p-%d: kept %v, accept again gave %v", i, kept, err)
		}
	}
}

// BenchmarkStoreAcceptBurst measures one burst of 50 concurrent accepts,
// each on disk before it returns.
func BenchmarkStoreAcceptBurst(b *testing.B) {
	s, err := openStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for n := 0; n < b.N; n++ {
		var wg sync.WaitGroup
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				id := fmt.Sprintf("b-%d-%d", n, i)
				if err := s.Accept(id, time.Now(), &Job{Delivery: id}); err != nil {
					b.Error(err)
				}
			}(i)
		}
		wg.Wait()
	}
}
