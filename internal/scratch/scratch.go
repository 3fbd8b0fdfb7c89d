// Package scratch chooses where short-lived folders with many small files
// go: a RAM-backed folder (tmpfs) when the machine has one with room, else
// the folder the caller gives.
//
// The restore check makes one scenario folder (a fixture repository of
// about 250 files) for each of its runs and removes it after. On a disk
// the file system's metadata work dominates: on the 2-core machine the
// project is measured on, creating a small file on ext4 costs about 14
// times its cost on tmpfs, and the restore part of the demo spent 2 of
// its 3.4 s as system time in the tool's own process. On tmpfs that was
// 0.2 s.
//
// RAM is only used when it has room to spare: a tmpfs with less than
// MinFree available (Docker gives /dev/shm 64 MiB by default) is not
// used, so the folders of a run never crowd a small tmpfs; nor is a tmpfs
// mounted noexec. What a sandboxed step writes into its scenario folder
// lands in RAM then, as what it writes to the sandbox's own /tmp always
// did: the scenario's time limit bounds the one, the size of that /tmp
// (internal/sandbox) the other.
package scratch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RAMDir is the tmpfs that MkdirTemp tries first.
const RAMDir = "/dev/shm"

// MinFree is the space a tmpfs must have available to be used.
const MinFree = 1 << 30

// StaleAfter is the age at which a folder left in RAMDir by a run that
// was killed (no cleanup of its own) is removed by a later run. No check
// runs longer than its time limit, at most 2 h.
const StaleAfter = 6 * time.Hour

// tmpfsMagic is TMPFS_MAGIC from linux/magic.h; stNoexec is ST_NOEXEC
// from statfs(2).
const (
	tmpfsMagic = 0x01021994
	stNoexec   = 8
)

// statfs is syscall.Statfs; tests replace it.
var statfs = syscall.Statfs

// InRAM reports whether dir is a tmpfs, not mounted noexec, with at least
// MinFree available, and if not, why.
func InRAM(dir string) (bool, string) {
	var st syscall.Statfs_t
	if err := statfs(dir, &st); err != nil {
		return false, fmt.Sprintf("%s: %v", dir, err)
	}
	if st.Type != tmpfsMagic {
		return false, fmt.Sprintf("%s is not a tmpfs", dir)
	}
	// A step may run a program from its folder, as it can in production;
	// on a noexec mount that would fail here only.
	if st.Flags&stNoexec != 0 {
		return false, fmt.Sprintf("%s is mounted noexec", dir)
	}
	if free := st.Bavail * uint64(st.Bsize); free < MinFree {
		return false, fmt.Sprintf("%s has %d MiB available, less than %d MiB", dir, free>>20, MinFree>>20)
	}
	return true, ""
}

// MkdirTemp makes a new folder named by pattern (as os.MkdirTemp) in
// RAMDir when InRAM says it may, else in fallback ("" is os.TempDir()).
// The name holds this process's id and start time after pattern's prefix
// (see ownerToken). Before it makes one, it removes the folders of the
// same pattern, there and in fallback, whose process is gone (a run that
// was killed and could not clean up), and in RAMDir those older than
// StaleAfter.
func MkdirTemp(fallback, pattern string) (string, error) {
	owned := ownedPattern(pattern)
	if fallback == "" {
		fallback = os.TempDir()
	}
	removeDead(fallback, pattern)
	if ok, _ := InRAM(RAMDir); ok {
		removeDead(RAMDir, pattern)
		removeStale(RAMDir, pattern, time.Now().Add(-StaleAfter))
		if dir, err := os.MkdirTemp(RAMDir, owned); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp(fallback, owned)
}

// ownedPattern puts this process's ownerToken after pattern's prefix.
func ownedPattern(pattern string) string {
	prefix, rest, ok := strings.Cut(pattern, "*")
	if !ok {
		return pattern + ownerToken(os.Getpid()) + "-"
	}
	return prefix + ownerToken(os.Getpid()) + "-*" + rest
}

// ownerToken names process pid by its id and start time (clock ticks
// after boot, from /proc/PID/stat), so that a pid used again by another
// process does not look like the owner. "" when pid is gone.
func ownerToken(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its last ")". starttime is field 22, the 20th after it.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return fmt.Sprintf("p%d.%s", pid, f[19])
}

// removeDead removes the folders in parent named by pattern's prefix
// and an ownerToken whose process is gone, that this user owns.
func removeDead(parent, pattern string) {
	prefix, _, _ := strings.Cut(pattern, "*")
	if prefix == "" {
		return
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	uid := uint32(os.Getuid())
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix+"p")
		if !e.IsDir() || !ok {
			continue
		}
		token, _, ok := strings.Cut(rest, "-")
		pidText, _, ok2 := strings.Cut(token, ".")
		pid, err := strconv.Atoi(pidText)
		if !ok || !ok2 || err != nil || pid <= 0 {
			continue
		}
		if ownerToken(pid) == "p"+token {
			continue // its process runs
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != uid {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}

// removeStale removes the folders in parent whose names start with
// pattern's prefix (the part before "*", as os.MkdirTemp reads it), that
// this user owns and that were last changed before cutoff.
func removeStale(parent, pattern string, cutoff time.Time) {
	prefix, _, _ := strings.Cut(pattern, "*")
	if prefix == "" {
		return
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	uid := uint32(os.Getuid())
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != uid {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}
