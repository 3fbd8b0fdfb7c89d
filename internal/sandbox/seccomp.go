package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter of the landlock backend. It is written here as a
// few BPF instructions rather than with github.com/elastic/go-seccomp-bpf:
// that module's filter sends a system call of another ABI (int 0x80 with
// i386 numbers on amd64) to the default action, which here is "allow",
// so the 32-bit socketcall and ptrace would pass. This filter refuses
// every call of a foreign ABI, and of the x32 ABI.
//
// What it refuses, with EPERM unless said:
//   - socket(2) for every family, with EACCES: no TCP or UDP, and no unix
//     socket either, because Landlock (up to ABI 7) does not control
//     connect(2) to a named unix socket, and a container may hold one
//     (GitHub mounts /var/run/docker.sock into a Docker action).
//     socketpair(2) of AF_UNIX stays: an unnamed pair reaches nobody.
//   - ptrace, process_vm_readv/writev, pidfd_getfd, kcmp: no reading or
//     changing another process.
//   - io_uring: its operations (socket, connect, openat) bypass this filter.
//   - open_by_handle_at: opens a file without a path, which path rules
//     cannot see.
//   - setxattr and removexattr: Landlock does not control extended
//     attributes, and as root the command holds CAP_DAC_OVERRIDE.
//   - new namespaces (unshare, setns, clone with CLONE_NEW*; clone3 gets
//     ENOSYS so that the C library falls back to clone), mount calls,
//     bpf, perf_event_open, the kernel keyring, userfaultfd.

// seccomp_data offsets (linux/seccomp.h), little-endian.
const (
	seccompNrOff   = 0
	seccompArchOff = 4
	seccompArg0Off = 16 // low 32 bits of args[0]
)

// BPF opcodes.
const (
	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// cloneNewFlags are the CLONE_NEW* flags, CLONE_NEWTIME included.
const cloneNewFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// x32SyscallBit marks a call of the x32 ABI on amd64.
const x32SyscallBit = 0x40000000

// deniedSyscalls get EPERM.
var deniedSyscalls = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD, unix.SYS_KCMP,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT,
	unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSCONFIG, unix.SYS_FSPICK, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE,
	unix.SYS_MOUNT_SETATTR,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
}

// seccompArch is the AUDIT_ARCH of this binary's ABI.
func seccompArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	}
	return 0, fmt.Errorf("the seccomp filter knows no %s", runtime.GOARCH)
}

// seccompFilter assembles the filter for this architecture.
func seccompFilter() ([]unix.SockFilter, error) {
	arch, err := seccompArch()
	if err != nil {
		return nil, err
	}
	ret := func(v uint32) unix.SockFilter { return unix.SockFilter{Code: bpfRetK, K: v} }
	errno := func(e unix.Errno) unix.SockFilter { return ret(unix.SECCOMP_RET_ERRNO | uint32(e)) }
	allow := ret(unix.SECCOMP_RET_ALLOW)
	// jeq k: fall through to the next instruction when equal, else skip n.
	jeq := func(k uint32, n uint8) unix.SockFilter { return unix.SockFilter{Code: bpfJeqK, K: k, Jt: 0, Jf: n} }
	ld := func(off uint32) unix.SockFilter { return unix.SockFilter{Code: bpfLdAbsW, K: off} }

	p := []unix.SockFilter{
		ld(seccompArchOff),
		{Code: bpfJeqK, K: arch, Jt: 1, Jf: 0},
		errno(unix.ENOSYS), // a foreign ABI
		ld(seccompNrOff),
	}
	if runtime.GOARCH == "amd64" {
		p = append(p, unix.SockFilter{Code: bpfJgeK, K: x32SyscallBit, Jt: 0, Jf: 1}, errno(unix.ENOSYS))
	}
	for _, nr := range deniedSyscalls {
		p = append(p, jeq(nr, 1), errno(unix.EPERM))
	}
	p = append(p,
		jeq(unix.SYS_SOCKET, 1), errno(unix.EACCES),
		jeq(unix.SYS_CLONE3, 1), errno(unix.ENOSYS),
		// socketpair: AF_UNIX only.
		jeq(unix.SYS_SOCKETPAIR, 4), ld(seccompArg0Off), jeq(unix.AF_UNIX, 1), allow, errno(unix.EACCES),
		// clone: no CLONE_NEW* flag (flags are the first argument on
		// amd64 and arm64).
		jeq(unix.SYS_CLONE, 4), ld(seccompArg0Off),
		unix.SockFilter{Code: bpfJsetK, K: cloneNewFlags, Jt: 0, Jf: 1}, errno(unix.EPERM), allow,
		allow,
	)
	if len(p) > 4096 {
		return nil, errors.New("seccomp filter too long")
	}
	return p, nil
}

// loadSeccompThread installs filter on the calling OS thread only (no
// TSYNC); it must be locked and have no_new_privs set.
func loadSeccompThread(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
