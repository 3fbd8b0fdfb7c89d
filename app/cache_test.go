package app

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestVerificationsShareTheRepositoryCache: every verification of a
// repository gets the same cache folder in the data folder (so a second
// push with an unchanged step reuses the first push's results), and the
// cache is pruned to its budget before a verification, the entries used
// longest ago first. A budget below 0 gives no cache folder.
func TestVerificationsShareTheRepositoryCache(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		budget  int64
		wantDir bool
	}{
		{"a budget", 1 << 10, true},
		{"no cache", -1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.config = func(c *Config) { c.CacheBytes = tc.budget }
			// An old entry of another repository over the budget, and a
			// recent one within it.
			root := filepath.Join(h.data, "cache")
			old := filepath.Join(root, "someone", "else", "restore", "old.json")
			recent := filepath.Join(root, testOwner, testRepo, "restore", "recent.json")
			for _, f := range []string{old, recent} {
				if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f, make([]byte, 800), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			long := time.Now().Add(-48 * time.Hour)
			if err := os.Chtimes(old, long, long); err != nil {
				t.Fatal(err)
			}
			v := &stubVerify{}
			h.start(v.fn)
			h.gh.SetPermission(testFull, "dev", "write")
			for i, head := range h.repo.heads[:2] {
				h.addPull(7, head, false)
				if got := h.send("pull_request", "cache-"+head, h.pullPayload("synchronize", 7, head, false)); got != http.StatusAccepted {
					t.Fatalf("push %d: status %d", i+1, got)
				}
				h.waitFor("the runs of the push", func() bool { return h.allDone(head, 3) && h.idle() })
			}
			v.mu.Lock()
			dirs := slices.Clone(v.cacheDirs)
			v.mu.Unlock()
			want := ""
			if tc.wantDir {
				want = filepath.Join(root, testOwner, testRepo)
			}
			if len(dirs) != 2 || dirs[0] != want || dirs[1] != want {
				t.Errorf("cache folders %q, want %q for both pushes", dirs, want)
			}
			_, oldErr := os.Stat(old)
			_, recentErr := os.Stat(recent)
			if tc.wantDir && (oldErr == nil || recentErr != nil) {
				t.Errorf("after pruning to %d bytes: the old entry is there %v, the recent one %v; want only the recent one", tc.budget, oldErr == nil, recentErr == nil)
			}
			if !tc.wantDir && (oldErr != nil || recentErr != nil) {
				t.Error("with no cache, entries were removed")
			}
		})
	}
}

// TestReplicasShareTheCacheThroughTheDatabase: what a verification keeps
// in its cache folder goes to the database, and a verification whose
// data folder lacks it (another replica, here the same one with its
// cache folder removed) finds it there. An entry in the database whose
// name would leave the cache folder is never written. On both drivers.
func TestReplicasShareTheCacheThroughTheDatabase(t *testing.T) {
	t.Parallel()
	forDrivers(t, func(t *testing.T, h *harness) {
		const entry = "restore/0123456789abcdef0123456789abcdef.json"
		v := &stubVerify{cacheFile: entry}
		h.start(v.fn)
		h.gh.SetPermission(testFull, "dev", "write")
		push := func(head string) {
			t.Helper()
			h.addPull(7, head, false)
			if got := h.send("pull_request", "share-"+head, h.pullPayload("synchronize", 7, head, false)); got != http.StatusAccepted {
				t.Fatalf("status %d", got)
			}
			h.waitFor("the runs of the push", func() bool { return h.allDone(head, 3) && h.idle() })
		}
		push(h.repo.heads[0])
		if err := os.RemoveAll(filepath.Join(h.data, "cache")); err != nil {
			t.Fatal(err)
		}
		// A name that would leave the folder, as a damaged or hostile row.
		bad := []cacheEntry{{name: "../../../escaped/0123456789abcdef0123456789abcdef.json", data: "{}"}}
		if err := h.srv.q.keepCache(context.Background(), testFull, bad); err != nil {
			t.Fatal(err)
		}
		push(h.repo.heads[1])
		v.mu.Lock()
		had := slices.Clone(v.cacheHad)
		v.mu.Unlock()
		if !slices.Equal(had, []bool{false, true}) {
			t.Errorf("the entry was there %v at the two pushes, want [false true]: the second push's folder should get it from the database", had)
		}
		if _, err := os.Stat(filepath.Join(h.data, "escaped")); err == nil {
			t.Error("a database entry named outside the cache folder was written")
		}
	})
}
