// Under bubblewrap the sandbox's own init is the reaper: no re-exec of this binary.

package sandbox

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// With --unshare-pid, bubblewrap's init is PID 1 of a PID namespace that
// holds the command and everything it starts: no process can leave a PID
// namespace, setsid and double forks included. When the command exits,
// the init exits, and the kernel kills every process left in the
// namespace and reaps it before the init's exit is seen. So under
// bubblewrap Run needs no reaper of its own, which saves starting this
// binary again for every command (a Go binary of this size costs tens of
// milliseconds of CPU to start, a sixth of a restore scenario).
//
// One gap remains, and nsInit closes it: the outer bubblewrap process
// exits as soon as its init reports the command's status, a moment before
// the init itself exits and the namespace is emptied. Run learns the
// init's pid from --info-fd, holds a pidfd on it from the start, and
// after bubblewrap exits waits for that pidfd: once it reports the init's
// exit, no process of the command is left. On a time limit or a cancel
// Run kills bubblewrap's process group and sends SIGKILL to the init
// through the pidfd, which empties the namespace at once.

// infoFD is bubblewrap's --info-fd in the child: the first ExtraFiles.
const infoFD = 3

// pidfdOK reports whether the kernel has pidfd_open (Linux 5.3); without
// it Run keeps the reaper under bubblewrap too.
var pidfdOK = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	_ = unix.Close(fd)
	return true
})

// nsInit is bubblewrap's init, PID 1 of the sandbox's PID namespace.
type nsInit struct {
	pidfd int // -1: none (bubblewrap died before it said, or it is gone)
}

// watchInit reads bubblewrap's --info-fd and opens a pidfd on the init it
// names. Until bubblewrap (pid bwrapPid) exits, the init is its child and
// its pid cannot be reused, even after the init exits. So the pidfd is
// kept only when, once it is open, the process's parent is still
// bubblewrap: then it is the init, and a later kill through it cannot
// reach another process that got the pid (pid_max may be as low as
// 32768). When bubblewrap has exited first (a short command, a tool
// that got no CPU for that long), there is nothing to hold and Run does
// not wait for the init.
func watchInit(info *os.File, bwrapPid int) <-chan nsInit {
	ch := make(chan nsInit, 1)
	go func() {
		defer info.Close()
		init := nsInit{pidfd: -1}
		var msg struct {
			ChildPid int `json:"child-pid"`
		}
		if err := json.NewDecoder(io.LimitReader(info, 4096)).Decode(&msg); err == nil && msg.ChildPid > 0 {
			if fd, err := unix.PidfdOpen(msg.ChildPid, 0); err == nil {
				if parentOf(msg.ChildPid) == bwrapPid {
					init.pidfd = fd
				} else {
					_ = unix.Close(fd)
				}
			}
		}
		ch <- init
		// bubblewrap writes once; drain until it exits so that it never
		// blocks on a full pipe.
		_, _ = io.Copy(io.Discard, info)
	}()
	return ch
}

// kill sends SIGKILL to the init: the kernel then kills every process of
// the namespace.
func (n nsInit) kill() {
	if n.pidfd >= 0 {
		_ = unix.PidfdSendSignal(n.pidfd, unix.SIGKILL, nil, 0)
	}
}

// wait blocks until the init has exited, killing it after grace, and
// closes the pidfd. It reports false when the init was still there after
// the kill and a second grace.
func (n nsInit) wait(grace time.Duration) bool {
	if n.pidfd < 0 {
		return true
	}
	defer unix.Close(n.pidfd)
	if exited(n.pidfd, grace) {
		return true
	}
	n.kill()
	return exited(n.pidfd, grace)
}

// exited polls a pidfd for the process's exit for at most d.
func exited(pidfd int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return true // not a pidfd we can poll: nothing to wait for
		case n > 0:
			return true
		case left == 0:
			return false
		}
	}
}
