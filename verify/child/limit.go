package child

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// limitMemory caps this process's address space (RLIMIT_AS's soft limit)
// at what it holds now plus extra. The base is what it holds at
// start, not 0: a binary built with the race detector reserves terabytes
// of address space before main. The hard limit stays, so that the
// commands the verification starts in the sandbox set their own limit
// (sandbox.LimitsOf) whatever this one is.
func limitMemory(extra int64) error {
	size, err := addressSpace()
	if err != nil {
		return err
	}
	lim := uint64(size + extra)
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &cur); err != nil {
		return fmt.Errorf("get RLIMIT_AS: %w", err)
	}
	lim = min(lim, cur.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: cur.Max}); err != nil {
		return fmt.Errorf("set RLIMIT_AS: %w", err)
	}
	return nil
}

// addressSpace is VmSize of /proc/self/status, in bytes.
func addressSpace() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("address space: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmSize:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("address space: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("address space: no VmSize in /proc/self/status")
}
