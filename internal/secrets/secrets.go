// Package secrets keeps the tokens and keys of the process's environment
// where no child process can read them.
//
// os.Unsetenv does not change /proc/<pid>/environ: the kernel shows the
// environment block the process was started with, and any process of the
// same user that PR code starts can read it. So Hide, called first in
// main, re-executes the binary (execve: same pid, new environment block)
// without the secret variables, and hands their values to the new image
// through an inherited pipe that it reads once and closes. From then on
// the values live only in Go memory, and the code reads them through
// Lookup and Getenv. Hide also makes the process non-dumpable, so that a
// process of the same user without CAP_SYS_PTRACE can neither attach to
// it nor read its /proc files (mem, environ, fd).
package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// HandoverEnv names the inherited pipe's descriptor in the re-executed
// process. It holds a number, never a secret.
const HandoverEnv = "TEMPLATE_VERIFY_HANDOVER_FD"

// maxHandover caps what the new image reads from the pipe.
const maxHandover = 1 << 20

// Linux constants the syscall package does not name.
const (
	fSetPipeSz    = 1031 // F_SETPIPE_SZ
	prSetDumpable = 4    // PR_SET_DUMPABLE
)

var (
	mu     sync.RWMutex
	values = map[string]string{}
)

// exactNames are secret variables whose names the patterns of IsSecret
// do not catch.
var exactNames = map[string]bool{
	"SSH_AUTH_SOCK": true, // the agent's socket gives the use of its keys
}

// nameParts mark a secret anywhere in a variable's name: GITHUB_TOKEN,
// INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN,
// TEMPLATE_VERIFY_PRIVATE_KEY, TEMPLATE_VERIFY_WEBHOOK_SECRET, ...
var nameParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PRIVATE_KEY", "PRIVATE-KEY", "CREDENTIAL", "API_KEY", "APIKEY", "ACCESS_KEY"}

// IsSecret reports whether the environment variable name holds a secret:
// a name with TOKEN, SECRET, PASSWORD, PRIVATE_KEY, CREDENTIAL or API_KEY
// in it, a TEMPLATE_VERIFY_ or INPUT_ variable that ends in KEY, and
// SSH_AUTH_SOCK. Case does not matter.
func IsSecret(name string) bool {
	n := strings.ToUpper(name)
	if n == HandoverEnv {
		return false
	}
	if exactNames[n] {
		return true
	}
	for _, p := range nameParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	if strings.HasPrefix(n, "TEMPLATE_VERIFY_") || strings.HasPrefix(n, "INPUT_") {
		return strings.HasSuffix(n, "_KEY") || strings.HasSuffix(n, "-KEY")
	}
	return false
}

// Lookup returns a secret moved out of the environment by Hide, else the
// variable of the environment.
func Lookup(name string) (string, bool) {
	mu.RLock()
	v, ok := values[name]
	mu.RUnlock()
	if ok {
		return v, true
	}
	return os.LookupEnv(name)
}

// Getenv is Lookup without the second result, in the shape of os.Getenv.
func Getenv(name string) string {
	v, _ := Lookup(name)
	return v
}

// Hide moves every secret variable out of the process's environment as
// the kernel shows it. Call it first in main, before any goroutine starts
// a process: when a secret is in the environment it does not return but
// re-executes the binary with the same arguments, and the new image's
// call reads the values back. It returns an error when the values cannot
// be moved; the caller must then not go on.
func Hide() error {
	if fd, ok := os.LookupEnv(HandoverEnv); ok {
		_ = os.Unsetenv(HandoverEnv)
		if err := receive(fd); err != nil {
			return err
		}
	}
	moved := map[string]string{}
	var keep []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if IsSecret(k) {
			moved[k] = v
		} else {
			keep = append(keep, kv)
		}
	}
	if len(moved) == 0 {
		return undumpable()
	}
	mu.RLock()
	for k, v := range values {
		moved[k] = v
	}
	mu.RUnlock()
	return handOver(moved, keep)
}

// handOver writes the values into a pipe whose read end survives execve
// and re-executes the binary with keep as its environment.
func handOver(moved map[string]string, keep []string) error {
	var buf bytes.Buffer
	for k, v := range moved {
		if strings.IndexByte(k, 0) >= 0 || strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("secrets: variable %s holds a NUL byte", k)
		}
		buf.WriteString(k)
		buf.WriteByte(0)
		buf.WriteString(v)
		buf.WriteByte(0)
	}
	if buf.Len() > maxHandover {
		return fmt.Errorf("secrets: the secret variables hold %d bytes, more than %d", buf.Len(), maxHandover)
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return fmt.Errorf("secrets: pipe: %w", err)
	}
	r, w := p[0], p[1]
	closeBoth := func() { _ = syscall.Close(r); _ = syscall.Close(w) }
	// The whole block must fit the pipe: nobody reads it before exec.
	if buf.Len() >= 60<<10 {
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(w), fSetPipeSz, uintptr(buf.Len()+4096)); e != 0 {
			closeBoth()
			return fmt.Errorf("secrets: grow the pipe to %d bytes: %w", buf.Len(), e)
		}
	}
	for b := buf.Bytes(); len(b) > 0; {
		n, err := syscall.Write(w, b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			closeBoth()
			return fmt.Errorf("secrets: write the pipe: %w", err)
		}
		b = b[n:]
	}
	_ = syscall.Close(w)
	// The read end, and only it, stays open across execve.
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(r), syscall.F_SETFD, 0); e != 0 {
		_ = syscall.Close(r)
		return fmt.Errorf("secrets: keep the pipe open across exec: %w", e)
	}
	keep = append(keep, HandoverEnv+"="+strconv.Itoa(r))
	err := syscall.Exec("/proc/self/exe", os.Args, keep)
	_ = syscall.Close(r)
	return fmt.Errorf("secrets: re-execute without the secret variables: %w", err)
}

// receive reads the values from the inherited pipe fd and closes it.
func receive(fdText string) error {
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return fmt.Errorf("secrets: %s=%q is not a descriptor", HandoverEnv, fdText)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("secrets: descriptor %d: %w", fd, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return fmt.Errorf("secrets: descriptor %d is not a pipe", fd)
	}
	f := os.NewFile(uintptr(fd), "secrets")
	defer f.Close()
	var data []byte
	chunk := make([]byte, 64<<10)
	for {
		n, err := f.Read(chunk)
		data = append(data, chunk[:n]...)
		if len(data) > maxHandover {
			return fmt.Errorf("secrets: more than %d bytes on the pipe", maxHandover)
		}
		if err != nil {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for len(data) > 0 {
		k, rest, ok1 := bytes.Cut(data, []byte{0})
		v, rest, ok2 := bytes.Cut(rest, []byte{0})
		if !ok1 || !ok2 {
			return errors.New("secrets: the pipe's data is cut short")
		}
		values[string(k)] = string(v)
		data = rest
	}
	return nil
}

// undumpable makes the process non-dumpable: its /proc files belong to
// root and only a process with CAP_SYS_PTRACE may attach to it or read
// its memory.
func undumpable() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); e != 0 {
		return fmt.Errorf("secrets: PR_SET_DUMPABLE: %w", e)
	}
	return nil
}
