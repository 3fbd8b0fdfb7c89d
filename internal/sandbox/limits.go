// Resource limits of a sandboxed command: address space, processes, CPU time.

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// The limits each sandboxed command gets when its Spec leaves them 0.
// Each process of the command gets them; they are rlimits, set by the
// shell that execs the command (see limitedArgs), so that the command
// and everything it starts inherit them and cannot raise them.
const (
	// DefaultMaxMemory is the address space of each process
	// (RLIMIT_AS): 4 GiB. An allocation past it fails (Python raises
	// MemoryError, C's malloc returns NULL).
	DefaultMaxMemory int64 = 4 << 30
	// DefaultMaxProcs is the number of processes that the command's
	// user may have (RLIMIT_NPROC): a fork past it fails with EAGAIN.
	// The kernel counts every process of that user, and does not apply
	// it to root (see SECURITY.md).
	DefaultMaxProcs = 1024
	// minCPU is the least CPU time a process gets by default.
	minCPU = 10 * time.Second
	// noTimeoutCPU is the CPU time of a process of a command without a
	// time limit.
	noTimeoutCPU = time.Hour
)

// Limits are the rlimits a command runs with; 0 is no limit.
type Limits struct {
	Memory int64  // RLIMIT_AS, bytes
	Procs  int64  // RLIMIT_NPROC
	CPU    uint64 // RLIMIT_CPU, whole seconds
}

// LimitsOf are the limits spec's command gets: the Spec's fields, the
// defaults for a 0, none for a negative value. The default CPU time is
// twice the time limit, at least 10 s (a process with threads uses CPU
// time faster than wall time), or an hour without a time limit.
func LimitsOf(spec Spec) Limits {
	var l Limits
	switch {
	case spec.MaxMemory == 0:
		l.Memory = DefaultMaxMemory
	case spec.MaxMemory > 0:
		l.Memory = spec.MaxMemory
	}
	switch {
	case spec.MaxProcs == 0:
		l.Procs = DefaultMaxProcs
	case spec.MaxProcs > 0:
		l.Procs = int64(spec.MaxProcs)
	}
	cpu := spec.MaxCPU
	if cpu == 0 {
		cpu = noTimeoutCPU
		if spec.Timeout > 0 {
			cpu = max(2*spec.Timeout, minCPU)
		}
	}
	if cpu > 0 {
		l.CPU = uint64((cpu + time.Second - 1) / time.Second)
	}
	return l
}

// limitShell is the bash that sets the limits before it execs the
// command: a system one, which every backend shows.
func limitShell() (string, error) {
	for _, p := range []string{"/usr/bin/bash", "/bin/bash"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no bash in /usr/bin or /bin to set the command's limits")
}

// limitedArgs returns argv run through bash, which sets l with ulimit
// (soft and hard; the hard CPU limit a second above the soft) and then execs argv in its own place: same pid, same
// exit status or signal. A limit above the tool's own hard limit is
// lowered to it, so that ulimit never fails.
func limitedArgs(shell string, l Limits, argv []string) []string {
	var b strings.Builder
	set := func(flag string, resource int, v uint64) {
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(resource, &cur); err == nil && cur.Max != ^uint64(0) && cur.Max < v {
			v = cur.Max
		}
		if flag == "v" {
			v /= 1024 // ulimit -v counts KiB
		}
		fmt.Fprintf(&b, "ulimit -%s %d || exit 126\n", flag, v)
	}
	if l.Memory > 0 {
		set("v", syscall.RLIMIT_AS, uint64(l.Memory))
	}
	if l.Procs > 0 {
		set("u", rlimitNproc, uint64(l.Procs))
	}
	if l.CPU > 0 {
		// SIGXCPU at the limit (the shell says "CPU time limit
		// exceeded"), SIGKILL a second later for a process that
		// catches it. The soft limit first: a hard limit below the soft
		// one is refused.
		set("St", syscall.RLIMIT_CPU, l.CPU)
		set("Ht", syscall.RLIMIT_CPU, l.CPU+1)
	}
	b.WriteString(`exec "$@"`)
	return append([]string{shell, "-c", b.String(), "template-verify-limits"}, argv...)
}

// rlimitNproc is RLIMIT_NPROC, which the syscall package does not name.
const rlimitNproc = 6
