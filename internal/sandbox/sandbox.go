// Package sandbox runs untrusted commands (rendered scripts, pytest on code
// from a pull request) with an explicit environment, a time limit, a cap
// on captured output, and no process that outlives it, setsid and
// double-fork survivors included: under bubblewrap its PID namespace sees
// to that (bwrapinit.go), elsewhere a reaper (reaper.go). Where
// bubblewrap works, the command also runs without network, in its own
// PID namespace with a fresh /proc, and sees only the system folders
// read-only and its own folders read-write.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/internal/loadclock"
	"github.com/formula-code/template-verify/internal/nice"
)

// DefaultMaxOutput caps stdout and stderr, each, when Spec.MaxOutput is 0.
const DefaultMaxOutput = 1 << 20

// Spec describes one command run.
type Spec struct {
	Args []string
	Dir  string
	// Env is added to the clean base environment (PATH, HOME, LANG, TMPDIR);
	// nothing else from the parent process reaches the command.
	Env   []string
	Stdin io.Reader
	// Home is the HOME and TMPDIR of the command; a fresh folder under Dir's
	// parent is not made for you: pass one you own. Empty means Dir.
	Home string
	// Writable lists folders the command may write when sandboxed. Dir and
	// Home are always writable.
	Writable []string
	// ReadOnly lists more folders the command may read when sandboxed,
	// beyond the system folders (see bwrapArgs). Never a path from a
	// pull request.
	ReadOnly  []string
	Timeout   time.Duration // 0: no limit beyond ctx
	MaxOutput int64         // per stream; 0: DefaultMaxOutput
	// MaxMemory is the address space of each process of the command
	// (RLIMIT_AS), in bytes; 0: DefaultMaxMemory; negative: no limit.
	MaxMemory int64
	// MaxProcs bounds the processes of the command's user (RLIMIT_NPROC);
	// 0: DefaultMaxProcs; negative: no limit. Root is not bound by it.
	MaxProcs int
	// MaxCPU is the CPU time of each process of the command
	// (RLIMIT_CPU, whole seconds, rounded up); past it the process gets
	// SIGXCPU, then SIGKILL. 0: twice Timeout, at least 10 s, or an hour
	// without a Timeout; negative: no limit.
	MaxCPU time.Duration
	// Sandbox asks for the backend of this process (see Backend): bwrap,
	// landlock, or none when neither works; Outcome.Backend says which ran.
	// A backend forced with WithMode that cannot run here makes
	// Run refuse the command.
	Sandbox bool
}

// Outcome is what happened.
type Outcome struct {
	ExitCode  int // -1 when the command did not exit normally
	Stdout    []byte
	Stderr    []byte
	Truncated bool // output was cut at MaxOutput
	TimedOut  bool
	Sandboxed bool   // Backend is not none
	Backend   string // BackendBwrap, BackendLandlock or BackendNone
	Duration  time.Duration
	// Err is set when the command could not start or was killed; a non-zero
	// exit alone is not an error.
	Err error
}

// Run executes spec and always returns an Outcome.
func Run(ctx context.Context, spec Spec) Outcome {
	if !spec.Sandbox {
		return run(ctx, spec, BackendNone)
	}
	c := current(ctx)
	if c.forced {
		return Outcome{ExitCode: -1, Backend: BackendNone, Err: fmt.Errorf("sandbox: %s", c.why)}
	}
	return run(ctx, spec, c.backend)
}

// run executes spec with backend.
func run(ctx context.Context, spec Spec, backend string) Outcome {
	start := time.Now()
	if len(spec.Args) == 0 {
		return Outcome{ExitCode: -1, Backend: backend, Err: errors.New("sandbox: no command")}
	}
	home := spec.Home
	if home == "" {
		home = spec.Dir
	}
	env := append([]string{
		"PATH=" + basePath(),
		"HOME=" + home,
		"TMPDIR=" + home,
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
	}, spec.Env...)
	shell, err := limitShell()
	if err != nil {
		return Outcome{ExitCode: -1, Backend: backend, Err: fmt.Errorf("sandbox: %w", err)}
	}
	limits := LimitsOf(spec)
	args := spec.Args
	sandboxed := backend != BackendNone
	var reaperOpts []string
	switch backend {
	case BackendBwrap:
		// The limits are set inside the sandbox, on the command only.
		inner := spec
		inner.Args = limitedArgs(shell, limits, spec.Args)
		args = bwrapArgs(inner, home)
	case BackendLandlock:
		reaperOpts = landlockOptions(spec, home)
		env = confinedPath(env, reaperOpts)
	}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = loadclock.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	maxOut := spec.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	stdout := &capped{max: maxOut}
	stderr := &capped{max: maxOut}
	// Resolve the program here, on the PATH the command gets (bwrap on
	// this process's), so that a missing program is a start error, as
	// it is without the reaper.
	path := envValue(env, "PATH")
	if backend == BackendBwrap {
		path = basePath()
	}
	prog, err := lookPathIn(args[0], path)
	if err != nil {
		return Outcome{ExitCode: -1, Err: fmt.Errorf("start %s: %w", args[0], err), Sandboxed: sandboxed, Backend: backend, Duration: time.Since(start)}
	}
	args = append([]string{prog}, args[1:]...)
	if backend != BackendBwrap {
		args = limitedArgs(shell, limits, args)
	}
	startErr := func(err error) Outcome {
		return Outcome{ExitCode: -1, Err: fmt.Errorf("start %s: %w", spec.Args[0], err), Sandboxed: sandboxed, Backend: backend, Duration: time.Since(start)}
	}
	// The child's descriptor 3 is one end of a pipe: bubblewrap's
	// --info-fd, or the reaper's lifeline.
	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		return startErr(err)
	}
	direct := backend == BackendBwrap && pidfdOK() // no reaper: see bwrapinit.go
	cmd := &exec.Cmd{
		Dir:    spec.Dir,
		Env:    env,
		Stdin:  spec.Stdin,
		Stdout: stdout,
		Stderr: stderr,
		// Its own group (bubblewrap, or the reaper, whose command gets
		// its own session), so that a group kill reaches nothing else.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	var lifeW, passed *os.File // the reaper's lifeline; the child's end
	if direct {
		defer pipeR.Close()
		// Descriptors this process inherited without close-on-exec (a
		// runner's pipes) would pass through bubblewrap to the command;
		// the reaper closes them in its own process where it runs.
		closeInheritedFDs()
		cmd.Path, passed = prog, pipeW
		cmd.Args = append([]string{prog, "--info-fd", strconv.Itoa(infoFD)}, args[1:]...)
	} else {
		// The lifeline: the reaper kills everything under it when this
		// end closes, also when this process dies.
		lifeW, passed = pipeW, pipeR
		defer lifeW.Close()
		cmd.Path = "/proc/self/exe"
		cmd.Args = append(append(append([]string{reaperArg0}, reaperOpts...), "--"), args...)
	}
	cmd.ExtraFiles = []*os.File{passed}
	// As root RLIMIT_NPROC binds nothing: a pids cgroup bounds the
	// command's processes where one can be made.
	if os.Geteuid() == 0 && limits.Procs > 0 {
		if g := newPidsGroup(limits.Procs); g != nil {
			defer g.remove()
			exe := cmd.Path
			if exe == "/proc/self/exe" { // in the wrapping bash it would be bash
				if exe, err = os.Executable(); err != nil {
					_ = passed.Close()
					return startErr(err)
				}
			}
			cmd.Path, cmd.Args = g.wrap(shell, exe, cmd.Args)
		}
	}
	err = nice.Start(cmd)
	_ = passed.Close()
	if err != nil {
		return startErr(err)
	}
	// bubblewrap's init (bwrapinit.go), read once, when first needed.
	var initOf func() nsInit
	if direct {
		initCh := watchInit(pipeR, cmd.Process.Pid)
		initOf = sync.OnceValue(func() nsInit { return <-initCh })
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	timedOut := false
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		if direct {
			// Killing bubblewrap's init empties the namespace; killing
			// bubblewrap makes the init die too (--die-with-parent).
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			initOf().kill()
		} else {
			// The reaper kills the command and everything it started.
			_ = lifeW.Close()
		}
		select {
		case waitErr = <-done:
		case <-time.After(5 * time.Second):
			// The reaper did not finish: kill it. Its children are in
			// their own sessions, so this is the last resort only.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			select {
			case waitErr = <-done:
			case <-time.After(5 * time.Second):
				// A process kept a pipe open; give up on the pipe.
				waitErr = ctx.Err()
			}
		}
	}
	outlived := false
	if direct {
		// bubblewrap has exited; its init may still be emptying the
		// namespace.
		outlived = !initOf().wait(5 * time.Second)
	}
	out := Outcome{
		ExitCode:  -1,
		Stdout:    stdout.Bytes(),
		Stderr:    stderr.Bytes(),
		Truncated: stdout.cut || stderr.cut,
		TimedOut:  timedOut,
		Sandboxed: sandboxed,
		Backend:   backend,
		Duration:  time.Since(start),
	}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		out.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case timedOut:
		out.Err = fmt.Errorf("killed after the time limit of %s%s", spec.Timeout, loadclock.Wall(spec.Timeout, out.Duration))
	case ctx.Err() != nil:
		out.Err = fmt.Errorf("cancelled: %w", ctx.Err())
	case outlived:
		out.Err = errors.New("the sandbox's init outlived the command and a kill")
	case waitErr != nil && out.ExitCode == -1:
		out.Err = fmt.Errorf("%s: %w", spec.Args[0], waitErr)
	}
	return out
}

// envValue is the value of key in env (KEY=VALUE), the last one winning
// as in exec.Cmd.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// lookPathIn finds file in the folders of path, as a shell would.
func lookPathIn(file, path string) (string, error) {
	if strings.Contains(file, "/") {
		if st, err := os.Stat(file); err != nil {
			return "", err
		} else if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s: not an executable file", file)
		}
		return file, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", file, exec.ErrNotFound)
}

// basePath is the PATH untrusted commands get: the parent's PATH, which
// finds bash, git and python3.
func basePath() string {
	if p := os.Getenv("PATH"); p != "" {
		return p
	}
	return "/usr/local/bin:/usr/bin:/bin"
}

// systemDirs are the folders of the host that every sandbox sees, read
// only: the programs and libraries that bash, git and python3 need. A
// folder that is a symlink on the host (/bin -> usr/bin) is the same
// symlink in the sandbox.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the entries of /etc that the sandbox sees: the dynamic
// loader's cache, users and groups, time zone, Debian's alternatives and
// Python's site configuration. Not /etc as a whole: it can hold keys,
// credentials helpers and the system git config.
var etcFiles = []string{
	"alternatives", "debian_version", "group", "host.conf", "hosts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"localtime", "mime.types", "nsswitch.conf", "os-release", "passwd", "protocols", "python3", "services",
	"shells", "terminfo", "timezone",
}

// ReadOnlyEnv names extra folders (separated by ":") that the operator
// lets every sandbox read, for example a Python installation outside
// /usr. A path from a pull request's config never gets there.
const ReadOnlyEnv = "TEMPLATE_VERIFY_SANDBOX_READONLY"

var (
	trustedMu sync.Mutex
	trusted   []string
)

// TrustInterpreter lets every sandbox from now on read the installation
// of an interpreter that this process found itself on its own PATH (never
// one that a pull request named): the folder above the bin folder of exe
// and of the file its symlinks lead to, for example a pyenv or venv
// Python. Installations under the system folders need nothing.
func TrustInterpreter(exe string) {
	cands := []string{exe}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		cands = append(cands, real)
	}
	trustedMu.Lock()
	defer trustedMu.Unlock()
	for _, c := range cands {
		if !filepath.IsAbs(c) {
			continue
		}
		prefix := filepath.Dir(filepath.Dir(filepath.Clean(c)))
		if prefix == "/" || underSystem(prefix) || slices.Contains(trusted, prefix) {
			continue
		}
		trusted = append(trusted, prefix)
	}
}

// underSystem reports whether p is one of systemDirs or inside one.
func underSystem(p string) bool {
	for _, d := range systemDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// capped is an io.Writer that keeps at most max bytes and drops the rest.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int64
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - int64(c.buf.Len())
	if room <= 0 {
		c.cut = c.cut || len(p) > 0
		return len(p), nil
	}
	if int64(len(p)) > room {
		c.buf.Write(p[:room])
		c.cut = true
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// Tail returns at most n bytes from the end of b, starting at a line break
// when one is near.
func Tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	t := b[len(b)-n:]
	if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		t = t[i+1:]
	}
	return strings.TrimSpace(string(t))
}
