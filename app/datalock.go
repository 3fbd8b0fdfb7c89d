package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockFile is the file in DataDir that a server holds an exclusive
// flock(2) on while it runs: one process per data folder, which holds the
// SQLite queue and the work folders that start removes.
const LockFile = "serve.lock"

// ErrDataDirInUse says that another process holds the data folder.
var ErrDataDirInUse = errors.New("another process uses the data folder")

// lockDataDir takes the exclusive lock on dir's LockFile and writes this
// process's id into it. The lock ends with the returned file (or with the
// process: the kernel drops it, also after a kill -9).
func lockDataDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the data folder: %w", err)
	}
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	// The holder may be this process: a server of it that just stopped,
	// whose lock a child forked meanwhile still shares until its exec
	// closes it. That ends in moments; another process's lock does not.
	for wait := 10 * time.Millisecond; errors.Is(err, unix.EWOULDBLOCK) && wait < 5*time.Second && heldByUs(path); wait *= 2 {
		time.Sleep(wait)
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		holder := "another process"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = fmt.Sprintf("process %d", pid)
			}
		}
		_ = f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w %s: %s holds %s; run one serve per data folder (stop it, or give this one another --data-dir)", ErrDataDirInUse, dir, holder, path)
		}
		return nil, fmt.Errorf("lock the data folder: flock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// heldByUs reports whether the lock file names this process.
func heldByUs(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && pid == os.Getpid()
}
