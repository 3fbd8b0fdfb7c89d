package app

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// The store's head claims: one job per pull-request head, in the same
// transaction that stores the job (issue 14.14).
func TestStoreHeadClaims(t *testing.T) {
	t.Parallel()
	job := func(id, repo string, pr int, sha string, request bool) *Job {
		return &Job{Delivery: testDeliveryID(id), Owner: "octo", Repo: repo, PR: pr, HeadSHA: sha, Request: request}
	}
	type step struct {
		op   string // admit, claim, queue, delete
		j    *Job
		sum  string
		want error // nil, errDuplicate, errSameHead
	}
	a := job("a", "hello", 1, "aaa", false)
	cases := []struct {
		name  string
		steps []step
	}{
		{"a second job of a waiting head is a duplicate", []step{
			{"admit", a, "1", nil},
			{"admit", job("b", "hello", 1, "aaa", false), "2", errSameHead},
			{"admit", job("r", "hello", 1, "aaa", true), "3", errSameHead},
		}},
		{"a head whose job was queued stays claimed; a request runs it again", []step{
			{"admit", a, "1", nil}, {"queue", a, "", nil}, {"delete", a, "", nil},
			{"admit", job("b", "hello", 1, "aaa", false), "2", errSameHead},
			{"admit", job("r", "hello", 1, "aaa", true), "3", nil},
		}},
		{"a head whose job never queued is free again", []step{
			{"admit", a, "1", nil}, {"delete", a, "", nil},
			{"admit", job("b", "hello", 1, "aaa", false), "2", nil},
		}},
		{"a request that may run takes the head from a job not queued yet", []step{
			{"admit", a, "1", nil},
			{"claim", job("r", "hello", 1, "aaa", true), "", nil},
			{"claim", a, "", errSameHead},
		}},
		{"a request does not take a head the announcer claimed (its check run is being made)", []step{
			{"admit", a, "1", nil}, {"claim", a, "", nil},
			{"claim", job("r", "hello", 1, "aaa", true), "", errSameHead},
		}},
		{"a request does not take a queued head", []step{
			{"admit", a, "1", nil}, {"queue", a, "", nil},
			{"claim", job("r", "hello", 1, "aaa", true), "", errSameHead},
		}},
		{"claiming its own head again is fine", []step{
			{"admit", a, "1", nil}, {"claim", a, "", nil}, {"claim", a, "", nil},
		}},
		{"the repository's case does not make another head; the PR and sha do", []step{
			{"admit", job("a", "Hello", 1, "AAA", false), "1", nil},
			{"admit", job("b", "hello", 1, "aaa", false), "2", errSameHead},
			{"admit", job("c", "hello", 2, "aaa", false), "3", nil},
			{"admit", job("d", "hello", 1, "bbb", false), "4", nil},
		}},
		{"a job without its head yet claims nothing", []step{
			{"admit", job("a", "hello", 1, "", false), "1", nil},
			{"admit", job("b", "hello", 1, "", false), "2", nil},
		}},
		{"the same body under another id is a duplicate delivery", []step{
			{"admit", a, "same", nil},
			{"admit", job("b", "hello", 9, "zzz", false), "same", errDuplicate},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openTestStore(t, t.TempDir())
			now := time.Now()
			for i, st := range c.steps {
				j := *st.j
				var err error
				switch st.op {
				case "admit":
					err = s.Admit(j.Delivery, st.sum, now, &j)
				case "claim":
					err = s.Claim(&j, now)
				case "queue":
					j.State = StateQueued
					err = s.Put(&j)
				case "delete":
					err = s.Delete(j.Delivery)
				}
				switch {
				case st.want == nil && err != nil,
					st.want != nil && !errors.Is(err, st.want),
					errors.Is(st.want, errDuplicate) && st.want != errSameHead && errors.Is(err, errSameHead):
					t.Fatalf("step %d %s %s: %v, want %v", i, st.op, st.j.Delivery[:8], err, st.want)
				}
			}
		})
	}
}

// Announcers that claim the same head at once: one wins.
func TestStoreClaimIsOneTransaction(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir())
	const n = 64
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := &Job{Delivery: testDeliveryID(fmt.Sprint("c-", i)), Owner: "octo", Repo: "hello", PR: 3, HeadSHA: "abc", Request: i%2 == 0}
			err := s.Claim(j, time.Now())
			if err == nil {
				j.State = StateQueued
				err = s.Put(j)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case !errors.Is(err, errSameHead):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d of %d claims of one head won, want 1", won, n)
	}
}

// Two maintainers ask for a run of the same fork head at once: the
// announcer claims the head in the store, so it runs once.
func TestTwoCommandsForOneHeadRunOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "maint", "maintain")
	h.gh.SetPermission(testFull, "admin2", "admin")
	h.addPull(9, h.repo.heads[1], true)
	var wg sync.WaitGroup
	for i, who := range []string{"maint", "admin2", "maint", "admin2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.send("issue_comment", fmt.Sprint("cmd-", i), h.commentPayload(9, who, fmt.Sprintf("/template-verify\nplease (%d)", i)))
		}()
	}
	wg.Wait()
	h.waitFor("the run", func() bool { return h.allDone(h.repo.heads[1], 3) && h.idle() })
	if n := v.calls.Load(); n != 1 {
		t.Fatalf("verify ran %d times for four commands on one head, want 1", n)
	}
	if n := countRuns(h, RunName); n != 1 {
		t.Fatalf("%d %q runs, want 1", n, RunName)
	}
}

// A head that ran is not run again by another event of the same push
// (check_suite requested), but a re-run request runs it again.
func TestVerifiedHeadRunsAgainOnlyOnRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(4, h.repo.heads[0], false)
	h.send("pull_request", "v-1", h.pullPayload("synchronize", 4, h.repo.heads[0], false))
	h.waitFor("the first run", func() bool { return h.allDone(h.repo.heads[0], 3) && h.idle() && v.calls.Load() == 1 })

	suite := func(action string) []byte {
		p := fixture(t, "check_suite/"+action+".payload.json")
		h.rewriteRepo(p)
		cs := obj(p, "check_suite")
		cs["head_sha"] = h.repo.heads[0]
		cs["pull_requests"] = []any{map[string]any{"number": 4, "base": map[string]any{"sha": h.repo.base, "ref": "main"}, "head": map[string]any{"sha": h.repo.heads[0]}}}
		obj(p, "sender")["login"] = "dev"
		return mustJSON(p)
	}
	if got := h.send("check_suite", "v-2", suite("requested")); got != http.StatusOK {
		t.Errorf("check_suite requested for a verified head: %d, want 200 (duplicate)", got)
	}
	if got := h.send("check_suite", "v-3", suite("rerequested")); got != http.StatusAccepted {
		t.Fatalf("check_suite rerequested: %d, want 202", got)
	}
	h.waitFor("the run on request", func() bool { return h.idle() && v.calls.Load() == 2 })
}

// Old body hashes and the claims of heads whose job is gone are
// forgotten with the delivery ids; a claim whose job waits is kept.
func TestStorePruneForgetsBodiesAndHeads(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir())
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-deliveryTTL - time.Hour)
	done := &Job{Delivery: testDeliveryID("done"), Owner: "octo", Repo: "hello", PR: 1, HeadSHA: "aaa", State: StateQueued}
	waiting := &Job{Delivery: testDeliveryID("waiting"), Owner: "octo", Repo: "hello", PR: 2, HeadSHA: "bbb"}
	for _, j := range []*Job{done, waiting} {
		if err := s.Admit(j.Delivery, "sum-"+j.Delivery, old, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(done); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(done.Delivery); err != nil {
		t.Fatal(err)
	}
	if err := s.PruneDeliveries(now); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		id   string
		sum  string
		j    *Job
		want error
	}{
		{"old body forgotten", testDeliveryID("new-1"), "sum-" + done.Delivery, nil, nil},
		{"verified head forgotten", testDeliveryID("new-2"), "x2", &Job{Delivery: testDeliveryID("new-2"), Owner: "octo", Repo: "hello", PR: 1, HeadSHA: "aaa"}, nil},
		{"waiting head kept", testDeliveryID("new-3"), "x3", &Job{Delivery: testDeliveryID("new-3"), Owner: "octo", Repo: "hello", PR: 2, HeadSHA: "bbb"}, errSameHead},
	}
	for _, c := range cases {
		if err := s.Admit(c.id, c.sum, now, c.j); !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
