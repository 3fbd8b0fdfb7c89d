package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock, called through golang.org/x/sys/unix on one OS thread (see
// confine.go). The module github.com/landlock-lsm/go-landlock restricts
// every thread of the process through libpsx, whose cgo build needs a
// linker wrap that `go test -race` builds do not get; the reaper only
// needs the thread that forks the command restricted.

// minLandlockABI is the lowest Landlock ABI the landlock backend runs on:
// ABI 3 (Linux 6.2) is the first that controls truncate(2), which a
// command could otherwise use on any file of its user.
const minLandlockABI = 3

// Access rights by the ABI that introduced them.
const (
	llFSv1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llFSRefer    = unix.LANDLOCK_ACCESS_FS_REFER                                            // ABI 2
	llFSTruncate = unix.LANDLOCK_ACCESS_FS_TRUNCATE                                         // ABI 3
	llFSIoctlDev = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV                                        // ABI 5
	llNetTCP     = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP // ABI 4
	llScoped     = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL    // ABI 6

	// llFileRights are the rights a rule on a file (not a folder) may hold.
	llFileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | llFSTruncate | llFSIoctlDev

	// llRead is what the system folders, /etc entries and the operator's
	// read-only folders allow.
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llWrite is what the command's own folders allow: everything but
	// device nodes and unix sockets.
	llWrite = (llFSv1 | llFSRefer | llFSTruncate) &^
		(unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK)
	// llDev is what /dev/null and the other plain devices allow.
	llDev = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | llFSTruncate | llFSIoctlDev
)

// devFiles are the devices a confined command may open.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// llHandled is what a ruleset for abi controls: everything that ABI knows.
func llHandled(abi int) unix.LandlockRulesetAttr {
	var a unix.LandlockRulesetAttr
	a.Handled_access_fs = llFSv1
	if abi >= 2 {
		a.Handled_access_fs |= llFSRefer
	}
	if abi >= 3 {
		a.Handled_access_fs |= llFSTruncate
	}
	if abi >= 5 {
		a.Handled_access_fs |= llFSIoctlDev
	}
	if abi >= 4 {
		// No rule allows a port: no TCP bind or connect at all.
		a.Handled_access_net = llNetTCP
	}
	if abi >= 6 {
		// No signals to processes outside the sandbox, no connect to an
		// abstract unix socket made outside it.
		a.Scoped = llScoped
	}
	return a
}

// landlockRules are the paths a confined command reaches.
type landlockRules struct {
	read, write []string
}

// rulesetFD builds the ruleset for rules; the caller closes the fd. It
// runs in the reaper before the fork, on any thread.
func rulesetFD(abi int, rules landlockRules) (int, error) {
	attr := llHandled(abi)
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	ok := false
	defer func() {
		if !ok {
			_ = unix.Close(int(fd))
		}
	}()
	add := func(path string, access uint64) error {
		access &= attr.Handled_access_fs
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil // a path that does not exist is not reachable
		}
		defer unix.Close(pfd)
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			return fmt.Errorf("landlock rule %s: %w", path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= llFileRights
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(pfd)}
		if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); e != 0 {
			return fmt.Errorf("landlock rule %s: %w", path, e)
		}
		return nil
	}
	for _, p := range rules.read {
		if err := add(p, llRead); err != nil {
			return -1, err
		}
	}
	// /proc: a process's own files. The files of the tool's processes stay
	// closed: Landlock denies ptrace access to processes outside the
	// sandbox, and /proc/PID/environ, mem and fd need it.
	if err := add("/proc", unix.LANDLOCK_ACCESS_FS_READ_FILE|unix.LANDLOCK_ACCESS_FS_READ_DIR); err != nil {
		return -1, err
	}
	for _, d := range devFiles {
		if err := add(d, llDev); err != nil {
			return -1, err
		}
	}
	for _, p := range rules.write {
		if err := add(p, llWrite); err != nil {
			return -1, err
		}
	}
	ok = true
	return int(fd), nil
}

// restrictThread enforces the ruleset on the calling OS thread, which
// must be locked (runtime.LockOSThread) and have no_new_privs set.
func restrictThread(rulesetFD int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rulesetFD), 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// landlockReadPaths are the paths every confined command reads: the same
// system folders and /etc entries bwrap shows, and the trusted and
// operator's folders.
func landlockReadPaths(spec Spec) []string {
	paths := append([]string{}, systemDirs...)
	paths = append(paths, etcEntries()...)
	return append(paths, extraReadOnly(spec)...)
}
