package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// The reaper. Every command that Run starts runs under a small process:
// this binary run again (/proc/self/exe) with reaperArg0 as its argv[0].
// The reaper marks itself a child subreaper (PR_SET_CHILD_SUBREAPER), so
// that every orphan among the command's descendants (a process started
// with setsid, or through a double fork) becomes its child rather than
// init's. When the command exits, when Run closes the lifeline pipe (the
// time limit, a cancel, or the death of the tool), or on SIGTERM, the
// reaper kills every process left under it, waits for each to be gone,
// and exits with the command's status. Under bubblewrap this also waits
// for the sandbox's PID namespace to be torn down: bubblewrap's init
// outlives bubblewrap for a moment and is killed and reaped here.
//
// The hook is in a package init function, so every binary that links
// this package (the tool and each test binary) can be its own reaper.

// reaperArg0 is the argv[0] that makes a process the reaper.
const reaperArg0 = "template-verify-reaper"

// lifelineFD is the reaper's end of the pipe whose closing tells it to
// stop: the first of exec.Cmd.ExtraFiles.
const lifelineFD = 3

// Linux constants the syscall package does not name.
const (
	prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER
)

func init() {
	if len(os.Args) > 1 && os.Args[0] == reaperArg0 {
		// syscall.Exit, not os.Exit: the reaper has nothing to flush, and
		// in a binary built with -race os.Exit first sleeps a second for
		// the race detector's report, once for every sandboxed command.
		syscall.Exit(reaperMain(os.Args[1:]))
	}
}

// reaperMain runs the command after "--" (confined first when the
// options before it say so, see confine.go) and returns the exit code; on
// a command killed by a signal it kills itself with the same signal where
// the Go runtime allows, so that the parent sees a signal death.
func reaperMain(args []string) int {
	confine, rules, argv, err := reaperOptions(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "template-verify reaper: %v\n", err)
		return 127
	}
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "template-verify reaper: no command")
		return 127
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintf(os.Stderr, "template-verify reaper: PR_SET_CHILD_SUBREAPER: %v\n", e)
		return 127
	}
	closeInheritedFDs()
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	stop := make(chan struct{})
	lifeline := os.NewFile(lifelineFD, "lifeline")
	go func() {
		// Blocks until Run closes its end or dies; no data is ever sent.
		var b [1]byte
		for {
			if _, err := lifeline.Read(b[:]); err != nil {
				close(stop)
				return
			}
		}
	}()
	path, err := lookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "template-verify reaper: %v\n", err)
		return 127
	}
	var child int
	if confine {
		child, err = startConfined(path, argv, rules)
	} else {
		child, err = syscall.ForkExec(path, argv, &syscall.ProcAttr{
			Env:   os.Environ(),
			Files: []uintptr{0, 1, 2},
			// Its own session and process group: a terminal signal or a
			// group kill aimed at the reaper does not skip the cleanup.
			Sys: &syscall.SysProcAttr{Setsid: true},
		})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "template-verify reaper: start %s: %v\n", argv[0], err)
		return 127
	}
	var status syscall.WaitStatus
	childDone, killing := false, false
	for {
		// Reap whatever has exited.
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if errors.Is(err, syscall.ECHILD) {
				if !childDone {
					// Cannot happen: the command is a child until reaped.
					return 127
				}
				return exitWith(status)
			}
			if err != nil || pid <= 0 {
				break
			}
			if pid == child {
				status, childDone, killing = ws, true, true
			}
		}
		if killing {
			killChildren()
		}
		var again <-chan time.Time
		if killing {
			// A process that became a child after the last look sends no
			// SIGCHLD until it dies: look again now and then.
			again = time.After(50 * time.Millisecond)
		}
		select {
		case s := <-sigs:
			if s != syscall.SIGCHLD {
				killing = true
			}
		case <-stop:
			stop = nil
			killing = true
		case <-again:
		}
		if killing {
			killChildren()
		}
	}
}

// lookPath finds file on the command's PATH (the reaper's environment is
// the command's).
func lookPath(file string) (string, error) {
	if bytes.ContainsRune([]byte(file), '/') {
		return file, nil
	}
	path := os.Getenv("PATH")
	for _, dir := range bytes.Split([]byte(path), []byte{':'}) {
		if len(dir) == 0 {
			dir = []byte(".")
		}
		p := string(dir) + "/" + file
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH", file)
}

// killChildren sends SIGKILL to every child of this process. Only the
// reaper's main loop reaps, so no pid found here can be reused before the
// kill reaches it.
func killChildren() {
	pids, ok := childrenOf()
	if !ok {
		pids = scanChildren()
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// childrenOf lists the children of this process from the kernel's
// /proc/self/task/TID/children files, one per thread (an orphan is given
// to one thread of its subreaper). It reads a few small files where
// scanChildren reads the stat file of every process on the machine: that
// scan took a fifth of the reaper's CPU time on a machine with 150
// processes. ok is false where the kernel has no such files
// (CONFIG_PROC_CHILDREN off).
func childrenOf() (pids []int, ok bool) {
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children"); err != nil {
		return nil, false // the main thread lives as long as the process
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue // the thread is gone
		}
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids, true
}

// scanChildren finds the children of this process in the stat file of
// every process.
func scanChildren() []int {
	self := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if parentOf(pid) == self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parentOf reads the parent pid of pid from /proc/<pid>/stat; 0 when the
// process is gone.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}

// exitWith ends the reaper the way the command ended.
func exitWith(ws syscall.WaitStatus) int {
	if ws.Exited() {
		return ws.ExitStatus()
	}
	if ws.Signaled() {
		sig := ws.Signal()
		switch sig {
		case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM:
			// Go's default for these is to die by the signal.
			signal.Reset(sig)
		default:
			sig = syscall.SIGKILL
		}
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the signal ends the process first
		return 128 + int(sig)
	}
	return 127
}
