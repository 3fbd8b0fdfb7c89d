// Package sandbox runs untrusted commands (rendered scripts, pytest on code
// from a pull request) with a clean environment, a time limit that kills the
// whole process group, a cap on captured output, and, where bubblewrap
// works, without network and with write access only to named folders.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

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
	Writable  []string
	Timeout   time.Duration // 0: no limit beyond ctx
	MaxOutput int64         // per stream; 0: DefaultMaxOutput
	// Sandbox asks for bubblewrap; when it is not usable the command runs
	// without it and Outcome.Sandboxed says so.
	Sandbox bool
}

// Outcome is what happened.
type Outcome struct {
	ExitCode  int // -1 when the command did not exit normally
	Stdout    []byte
	Stderr    []byte
	Truncated bool // output was cut at MaxOutput
	TimedOut  bool
	Sandboxed bool
	Duration  time.Duration
	// Err is set when the command could not start or was killed; a non-zero
	// exit alone is not an error.
	Err error
}

// Run executes spec and always returns an Outcome.
func Run(ctx context.Context, spec Spec) Outcome {
	start := time.Now()
	if len(spec.Args) == 0 {
		return Outcome{ExitCode: -1, Err: errors.New("sandbox: no command")}
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
	args := spec.Args
	sandboxed := false
	if spec.Sandbox && Available() {
		args = bwrapArgs(spec, home)
		sandboxed = true
	}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	maxOut := spec.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	stdout := &capped{max: maxOut}
	stderr := &capped{max: maxOut}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = env
	cmd.Stdin = spec.Stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := nice.Start(cmd); err != nil {
		return Outcome{ExitCode: -1, Err: fmt.Errorf("start %s: %w", args[0], err), Sandboxed: sandboxed, Duration: time.Since(start)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	timedOut := false
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		// Kill the whole group: a script's children die with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		select {
		case waitErr = <-done:
		case <-time.After(5 * time.Second):
			// A grandchild kept a pipe open; its group is dead, so give up
			// on the pipe.
			waitErr = ctx.Err()
		}
	}
	// Kill leftovers of a command that exited but left its group running.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	out := Outcome{
		ExitCode:  -1,
		Stdout:    stdout.Bytes(),
		Stderr:    stderr.Bytes(),
		Truncated: stdout.cut || stderr.cut,
		TimedOut:  timedOut,
		Sandboxed: sandboxed,
		Duration:  time.Since(start),
	}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		out.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case timedOut:
		out.Err = fmt.Errorf("killed after the time limit of %s", spec.Timeout)
	case ctx.Err() != nil:
		out.Err = fmt.Errorf("cancelled: %w", ctx.Err())
	case waitErr != nil && out.ExitCode == -1:
		out.Err = fmt.Errorf("%s: %w", args[0], waitErr)
	}
	return out
}

// basePath is the PATH untrusted commands get: the parent's PATH, which
// finds bash, git and python3.
func basePath() string {
	if p := os.Getenv("PATH"); p != "" {
		return p
	}
	return "/usr/local/bin:/usr/bin:/bin"
}

func bwrapArgs(spec Spec, home string) []string {
	a := []string{"bwrap",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent", "--new-session",
	}
	seen := map[string]bool{}
	for _, w := range append([]string{spec.Dir, home}, spec.Writable...) {
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		a = append(a, "--bind", w, w)
	}
	if spec.Dir != "" {
		a = append(a, "--chdir", spec.Dir)
	}
	return append(append(a, "--"), spec.Args...)
}

var (
	availableOnce sync.Once
	available     bool
)

// Available reports whether bubblewrap can start a sandbox on this machine
// (it needs user namespaces or root). The answer is cached.
func Available() bool {
	availableOnce.Do(func() {
		if os.Getenv("TEMPLATE_VERIFY_NO_SANDBOX") == "1" {
			return
		}
		if _, err := exec.LookPath("bwrap"); err != nil {
			return
		}
		// Probe with the same flags as a real run: in some containers
		// bwrap starts but cannot mount /proc for a new PID namespace.
		dir := os.TempDir()
		args := bwrapArgs(Spec{Args: []string{"true"}, Dir: dir}, dir)
		available = exec.Command(args[0], args[1:]...).Run() == nil
	})
	return available
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
