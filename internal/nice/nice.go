// Package nice lowers the CPU priority of the child processes that this
// process starts. The App sets it once at start, so that the git, bash and
// pytest processes of running verifications yield the CPU to the webhook
// handler, which GitHub expects to answer within seconds.
//
// Linux keeps a nice level per thread, and a child starts with the level
// of the thread that forked it. Start therefore forks every child from one
// goroutine locked to an OS thread that runs at the level: the child and
// all it starts run at that level from their first instruction, with no
// nice(1) process in between (a process start costs milliseconds of
// kernel time on a small virtual machine).
package nice

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Max is the lowest priority Linux has.
const Max = 19

var (
	mu      sync.Mutex
	level   int
	spawner chan request // nil until the first Set above 0
)

// request is one job for the spawner thread: start a command, or move the
// thread to another level.
type request struct {
	cmd   *exec.Cmd
	level int
	done  chan error
}

// Set makes the processes started through Start from now on run at nice
// level n above this process (0 to 19; 0 starts them directly). Raising
// the level is always allowed; lowering it again above 0 needs
// CAP_SYS_NICE.
func Set(n int) error {
	if n < 0 || n > Max {
		return fmt.Errorf("nice level %d: want 0 to %d", n, Max)
	}
	mu.Lock()
	defer mu.Unlock()
	if n == 0 {
		level = 0
		return nil
	}
	if spawner == nil {
		spawner = make(chan request)
		go spawn(spawner)
	}
	req := request{level: n, done: make(chan error, 1)}
	spawner <- req
	if err := <-req.done; err != nil {
		return fmt.Errorf("nice level %d: %w", n, err)
	}
	level = n
	return nil
}

// Start starts cmd like cmd.Start, at the level of Set.
func Start(cmd *exec.Cmd) error {
	mu.Lock()
	n, ch := level, spawner
	mu.Unlock()
	if n == 0 {
		return cmd.Start()
	}
	req := request{cmd: cmd, done: make(chan error, 1)}
	ch <- req
	return <-req.done
}

// Run is Start followed by cmd.Wait.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// spawn owns the niced thread. It never unlocks it, so no other goroutine
// ever runs on a thread with a lowered priority.
func spawn(reqs <-chan request) {
	runtime.LockOSThread()
	base, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	// The raw syscall returns 20 - nice.
	processNice := 20 - base
	for req := range reqs {
		if req.cmd == nil {
			if err != nil {
				req.done <- fmt.Errorf("read the process's nice level: %w", err)
				continue
			}
			req.done <- syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), min(processNice+req.level, Max))
			continue
		}
		req.done <- req.cmd.Start()
	}
}
