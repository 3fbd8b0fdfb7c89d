package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("not run: no python3")
	}
}

// TestMemoryLimit: a command that allocates 512 MiB under a limit of
// 256 MiB gets MemoryError; with the default limit the same allocation
// succeeds, so it is the limit that stops it.
func TestMemoryLimit(t *testing.T) {
	needPython(t)
	alloc := "b = bytearray(512 << 20); b[-1] = 1; print('allocated')"
	eachMode(t, func(t *testing.T, backend string) {
		out := run(context.Background(), Spec{Args: []string{"python3", "-c", alloc}, Dir: t.TempDir(), MaxMemory: 256 << 20, Timeout: 5 * time.Minute}, backend)
		if out.ExitCode == 0 || !strings.Contains(string(out.Stderr), "MemoryError") {
			t.Errorf("under 256 MiB: exit %d, err %v, stdout %q, stderr %q; want MemoryError", out.ExitCode, out.Err, out.Stdout, Tail(out.Stderr, 400))
		}
		out = run(context.Background(), Spec{Args: []string{"python3", "-c", alloc}, Dir: t.TempDir(), Timeout: 5 * time.Minute}, backend)
		if out.ExitCode != 0 || string(out.Stdout) != "allocated\n" {
			t.Errorf("under the default limit: exit %d, err %v, stderr %q", out.ExitCode, out.Err, Tail(out.Stderr, 400))
		}
	})
}

// forkMany forks up to 200 children that sleep, and says how many it
// made: exit 3 when a fork failed.
const forkMany = `
import os, sys, time
n = 0
try:
    for i in range(200):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError as e:
    print("stopped after", n, e.errno)
    sys.exit(3)
print("forked", n)
`

// TestProcessLimit: a command that forks 200 children under a limit of
// 40 processes is stopped at a fork. The kernel does not apply
// RLIMIT_NPROC to root: as root the command runs in a pids cgroup of 40
// (the bwrap and none backends), or as nobody (landlock); where neither
// holds the test is not run.
func TestProcessLimit(t *testing.T) {
	needPython(t)
	eachMode(t, func(t *testing.T, backend string) {
		if os.Getuid() == 0 && backend != BackendLandlock && pidsParent() == "" {
			t.Skipf("not run: the %s backend runs the command as root, whom RLIMIT_NPROC does not bind, and no pids cgroup can be made here", backend)
		}
		out := run(context.Background(), Spec{Args: []string{"python3", "-c", forkMany}, Dir: t.TempDir(), MaxProcs: 40, Timeout: 5 * time.Minute}, backend)
		if out.ExitCode != 3 || !strings.HasPrefix(string(out.Stdout), "stopped after") {
			t.Errorf("exit %d, err %v, stdout %q, stderr %q; want a failed fork", out.ExitCode, out.Err, out.Stdout, Tail(out.Stderr, 400))
		}
		t.Logf("%s", out.Stdout)
	})
}

// TestCPULimit: a busy loop under a CPU limit of 1 s is ended by the
// kernel (SIGXCPU), not by the time limit of 10 minutes.
func TestCPULimit(t *testing.T) {
	eachMode(t, func(t *testing.T, backend string) {
		out := run(context.Background(), Spec{Args: []string{"bash", "-c", "while :; do :; done"}, Dir: t.TempDir(), MaxCPU: time.Second, Timeout: 10 * time.Minute}, backend)
		if out.TimedOut || out.ExitCode == 0 {
			t.Fatalf("timed out %v, exit %d, err %v", out.TimedOut, out.ExitCode, out.Err)
		}
		t.Logf("exit %d, err %v", out.ExitCode, out.Err)
	})
}

func TestLimitsOf(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want Limits
	}{
		{Spec{}, Limits{Memory: DefaultMaxMemory, Procs: DefaultMaxProcs, CPU: 3600}},
		{Spec{Timeout: 90 * time.Second}, Limits{Memory: DefaultMaxMemory, Procs: DefaultMaxProcs, CPU: 180}},
		{Spec{Timeout: time.Second}, Limits{Memory: DefaultMaxMemory, Procs: DefaultMaxProcs, CPU: 10}},
		{Spec{MaxMemory: -1, MaxProcs: -1, MaxCPU: -1}, Limits{}},
		{Spec{MaxMemory: 1 << 20, MaxProcs: 5, MaxCPU: 1500 * time.Millisecond}, Limits{Memory: 1 << 20, Procs: 5, CPU: 2}},
	} {
		if got := LimitsOf(tc.spec); got != tc.want {
			t.Errorf("LimitsOf(%+v) = %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

// TestPidsGroupsOfDeadToolsAreSwept: a cgroup that a tool killed before
// it removed it is removed by the next tool, with what is left in it; a
// cgroup of a tool that still runs stays.
func TestPidsGroupsOfDeadToolsAreSwept(t *testing.T) {
	parent := findPidsParent()
	if os.Getuid() != 0 || parent == "" {
		t.Skip("not run: no pids cgroup can be made here")
	}
	// A pid that no process has: a child that has exited and been waited.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(parent, fmt.Sprintf("template-verify-%d-1", gone.Process.Pid))
	alive := filepath.Join(parent, fmt.Sprintf("template-verify-%d-1", os.Getppid()))
	for _, d := range []string{dead, alive} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = os.Remove(alive); _ = os.Remove(dead) })
	// A process left in the dead tool's cgroup.
	left := exec.Command("sleep", "600")
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "cgroup.procs"), []byte(strconv.Itoa(left.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	sweepPidsGroups(parent)
	if _, err := os.Stat(dead); err == nil {
		t.Error("the cgroup of a tool that no longer runs was kept")
	}
	if _, err := os.Stat(alive); err != nil {
		t.Error("the cgroup of a running tool was removed")
	}
	if err := left.Wait(); err == nil {
		t.Error("the process left in the swept cgroup was not killed")
	}
}
