package scratch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestInRAM(t *testing.T) {
	cases := []struct {
		name   string
		fs     syscall.Statfs_t
		err    error
		want   bool
		reason string
	}{
		{"large tmpfs", syscall.Statfs_t{Type: tmpfsMagic, Bsize: 4096, Bavail: 6 << 20}, nil, true, ""},
		{"tmpfs of exactly MinFree", syscall.Statfs_t{Type: tmpfsMagic, Bsize: 4096, Bavail: MinFree / 4096}, nil, true, ""},
		{"Docker's 64 MiB /dev/shm", syscall.Statfs_t{Type: tmpfsMagic, Bsize: 4096, Bavail: 64 << 20 / 4096}, nil, false, "has 64 MiB available, less than 1024 MiB"},
		{"noexec tmpfs", syscall.Statfs_t{Type: tmpfsMagic, Bsize: 4096, Bavail: 6 << 20, Flags: stNoexec | 2 /* nosuid */}, nil, false, "is mounted noexec"},
		{"nosuid, nodev tmpfs", syscall.Statfs_t{Type: tmpfsMagic, Bsize: 4096, Bavail: 6 << 20, Flags: 2 | 4}, nil, true, ""},
		{"ext4", syscall.Statfs_t{Type: 0xef53, Bsize: 4096, Bavail: 1 << 30}, nil, false, "is not a tmpfs"},
		{"missing", syscall.Statfs_t{}, syscall.ENOENT, false, "no such file or directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			statfs = func(path string, st *syscall.Statfs_t) error {
				*st = tc.fs
				return tc.err
			}
			t.Cleanup(func() { statfs = syscall.Statfs })
			got, reason := InRAM("/dev/shm")
			if got != tc.want || !strings.Contains(reason, tc.reason) || (tc.want && reason != "") {
				t.Errorf("InRAM = %v, %q; want %v, %q", got, reason, tc.want, tc.reason)
			}
		})
	}
}

// TestMkdirTempFallsBack: without a usable tmpfs the folder is made in
// the fallback folder, and it says so.
func TestMkdirTempFallsBack(t *testing.T) {
	statfs = func(string, *syscall.Statfs_t) error { return errors.New("no statfs") }
	t.Cleanup(func() { statfs = syscall.Statfs })
	parent := t.TempDir()
	dir, err := MkdirTemp(parent, "scratch-test-*")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != parent {
		t.Errorf("MkdirTemp = %s; want a folder in %s", dir, parent)
	}
}

// TestMkdirTempUsesRAM runs where /dev/shm is a large tmpfs (this
// project's CI machine); elsewhere it is not run.
func TestMkdirTempUsesRAM(t *testing.T) {
	if ok, why := InRAM(RAMDir); !ok {
		t.Skipf("not run: %s", why)
	}
	dir, err := MkdirTemp(t.TempDir(), "scratch-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if filepath.Dir(dir) != RAMDir {
		t.Errorf("MkdirTemp = %s; want a folder in %s", dir, RAMDir)
	}
}

// TestRemoveStale removes only old folders of the pattern: not new ones,
// not other names, not files.
func TestRemoveStale(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	mk := func(name string, dir bool, mtime time.Time) string {
		p := filepath.Join(parent, name)
		var err error
		if dir {
			err = os.Mkdir(p, 0o700)
			if err == nil {
				err = os.WriteFile(filepath.Join(p, "f"), []byte("x"), 0o600)
			}
		} else {
			err = os.WriteFile(p, []byte("x"), 0o600)
		}
		if err == nil {
			err = os.Chtimes(p, mtime, mtime)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk("tv-restore-1", true, old)
	fresh := mk("tv-restore-2", true, time.Now())
	other := mk("other-1", true, old)
	file := mk("tv-restore-file", false, old)
	removeStale(parent, "tv-restore-*", time.Now().Add(-StaleAfter))
	for p, want := range map[string]bool{stale: false, fresh: true, other: true, file: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestMkdirTempRemovesDeadRunsFolders: the folders of a run whose
// process is gone (a killed run) are removed at the next MkdirTemp, of
// any age; those of a running process stay, and a pid used again by
// another process (another start time) does not keep a folder. Before,
// a killed run's folders stayed for StaleAfter in RAM and for ever in
// the fallback folder.
func TestMkdirTempRemovesDeadRunsFolders(t *testing.T) {
	statfs = func(string, *syscall.Statfs_t) error { return errors.New("no statfs") }
	t.Cleanup(func() { statfs = syscall.Statfs })
	parent := t.TempDir()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadToken := ownerToken(cmd.Process.Pid)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if deadToken == "" || ownerToken(cmd.Process.Pid) != "" {
		t.Fatalf("owner token %q of a live sleep, %q after its end", deadToken, ownerToken(cmd.Process.Pid))
	}
	mk := func(name string) string {
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(p, "repo"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := mk("tv-restore-" + deadToken + "-123")
	reused := mk(fmt.Sprintf("tv-restore-p%d.1-456", os.Getpid()))
	live := mk("tv-restore-" + ownerToken(os.Getpid()) + "-789")
	old := mk("tv-restore-1")
	dir, err := MkdirTemp(parent, "tv-restore-*")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "tv-restore-"+ownerToken(os.Getpid())+"-") {
		t.Errorf("new folder %s has no owner token", dir)
	}
	for p, want := range map[string]bool{dead: false, reused: false, live: true, old: true, dir: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
