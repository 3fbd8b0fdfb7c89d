package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCleanEnvironment(t *testing.T) {
	t.Setenv("TEMPLATE_VERIFY_SECRET_TOKEN", "s3cret")
	dir := t.TempDir()
	home := t.TempDir()
	out := Run(context.Background(), Spec{
		Args: []string{"bash", "-c", `env; echo "pwd=$PWD"`},
		Dir:  dir, Home: home, Env: []string{"EXTRA=1"},
	})
	if out.Err != nil || out.ExitCode != 0 {
		t.Fatalf("run: %v, exit %d, %s", out.Err, out.ExitCode, out.Stderr)
	}
	env := string(out.Stdout)
	if strings.Contains(env, "s3cret") {
		t.Error("a variable of the parent reaches the command")
	}
	for _, want := range []string{"HOME=" + home + "\n", "TMPDIR=" + home + "\n", "EXTRA=1\n", "pwd=" + dir + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment has no %q:\n%s", want, env)
		}
	}
}

func TestExitCodeAndStartError(t *testing.T) {
	out := Run(context.Background(), Spec{Args: []string{"bash", "-c", "echo err >&2; exit 3"}, Dir: t.TempDir()})
	if out.ExitCode != 3 || out.Err != nil || string(out.Stderr) != "err\n" {
		t.Errorf("exit %d, err %v, stderr %q", out.ExitCode, out.Err, out.Stderr)
	}
	out = Run(context.Background(), Spec{Args: []string{"/no/such/program"}, Dir: t.TempDir()})
	if out.Err == nil || out.ExitCode != -1 {
		t.Errorf("missing program: exit %d, err %v", out.ExitCode, out.Err)
	}
	if out := Run(context.Background(), Spec{}); out.Err == nil {
		t.Error("no command gives no error")
	}
}

// TestTimeoutKillsTheWholeGroup: a child that outlives the limit must die
// with the command. The child says it runs before the limit, so the test
// never races the limit: after Run returns, no process of the command may
// be left on the machine (the host's /proc sees into every sandbox).
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	eachMode(t, func(t *testing.T, backend string) {
		dir := t.TempDir()
		ready := filepath.Join(dir, "ready")
		marker := fmt.Sprintf("%d.%d", 900+os.Getpid()%1000, time.Now().UnixNano()%1000)
		start := time.Now()
		out := run(context.Background(), Spec{
			Args:    []string{"bash", "-c", `(exec sleep ` + marker + `) & while ! kill -0 $! || [ "$(cat /proc/$!/cmdline | tr '\0' ' ')" != "sleep ` + marker + ` " ]; do sleep 0.05; done; : > "` + ready + `"; sleep 600`},
			Dir:     dir,
			Timeout: time.Second,
			Sandbox: backend != BackendNone,
		}, backend)
		if !out.TimedOut || out.Err == nil || out.ExitCode != -1 {
			t.Errorf("timed out %v, err %v, exit %d", out.TimedOut, out.Err, out.ExitCode)
		}
		if took := time.Since(start); took > 2*time.Minute {
			t.Errorf("Run returned after %s", took)
		}
		if _, err := os.Stat(ready); err != nil {
			t.Fatalf("the command's child did not start before the limit: %v (stderr %q)", err, out.Stderr)
		}
		if pids := processesWith("sleep " + marker); len(pids) > 0 {
			t.Errorf("the command's child outlived the limit: pids %v", pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// processesWith lists the live processes whose command line is cmdline
// (arguments joined by spaces).
func processesWith(cmdline string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")) == cmdline {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestCancelIsNotATimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	out := Run(ctx, Spec{Args: []string{"sleep", "30"}, Dir: t.TempDir()})
	if out.TimedOut || out.Err == nil || !strings.Contains(out.Err.Error(), "cancelled") {
		t.Errorf("timed out %v, err %v", out.TimedOut, out.Err)
	}
}

func TestOutputIsCapped(t *testing.T) {
	out := Run(context.Background(), Spec{
		Args:      []string{"bash", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo done >&2"},
		Dir:       t.TempDir(),
		MaxOutput: 1000,
	})
	if len(out.Stdout) != 1000 || !out.Truncated {
		t.Errorf("stdout %d bytes, truncated %v", len(out.Stdout), out.Truncated)
	}
	if string(out.Stderr) != "done\n" || out.ExitCode != 0 {
		t.Errorf("stderr %q, exit %d", out.Stderr, out.ExitCode)
	}
}

func TestSandboxWritesOnlyNamedFolders(t *testing.T) {
	eachBackend(t, testSandboxWritesOnlyNamedFolders)
}

func testSandboxWritesOnlyNamedFolders(t *testing.T, backend string) {
	// A folder outside /tmp, because the sandbox puts an empty /tmp over
	// the host's.
	parent, err := os.MkdirTemp("/var/tmp", "sandbox-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	dir := filepath.Join(parent, "dir")
	extra := filepath.Join(parent, "extra")
	outside := filepath.Join(parent, "outside")
	for _, d := range []string{dir, extra, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	canary := filepath.Join(outside, "canary")
	if err := os.WriteFile(canary, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
echo in > in.txt
echo extra > "$1/x.txt"
echo out > "$2/out.txt" 2>/dev/null && echo WROTE-OUTSIDE
rm -f "$2/canary" 2>/dev/null
echo tmp > /tmp/sandbox-test-file 2>/dev/null
cat /tmp/sandbox-test-file 2>/dev/null
echo "$TMPDIR" > "$TMPDIR/tmpdir-ok" && echo tmpdir-ok
`
	out := run(context.Background(), Spec{
		Args:     []string{"bash", "-c", script, "bash", extra, outside},
		Dir:      dir,
		Writable: []string{extra},
		Sandbox:  true,
	}, backend)
	if !out.Sandboxed || out.Err != nil {
		t.Fatalf("sandboxed %v, err %v, stderr %s", out.Sandboxed, out.Err, out.Stderr)
	}
	if bytes.Contains(out.Stdout, []byte("WROTE-OUTSIDE")) {
		t.Errorf("stdout %q", out.Stdout)
	}
	// bwrap gives a private /tmp; landlock none (TMPDIR is the command's
	// HOME under both).
	if hasTmp := bytes.Contains(out.Stdout, []byte("tmp\n")); hasTmp != (backend == BackendBwrap) {
		t.Errorf("writable /tmp %v: %q %q", hasTmp, out.Stdout, out.Stderr)
	}
	if !bytes.Contains(out.Stdout, []byte("tmpdir-ok\n")) {
		t.Errorf("TMPDIR is not writable: %q %q", out.Stdout, out.Stderr)
	}
	for _, f := range []string{filepath.Join(dir, "in.txt"), filepath.Join(extra, "x.txt"), canary} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the command wrote outside its folders")
	}
	if _, err := os.Stat("/tmp/sandbox-test-file"); err == nil {
		_ = os.Remove("/tmp/sandbox-test-file")
		t.Error("the command wrote into the host's /tmp")
	}
}

// TestSandboxTmpIsCapped: the sandbox's /tmp is in RAM, so a command
// cannot fill it past TmpSize; it gets "no space" instead.
func TestSandboxTmpIsCapped(t *testing.T) {
	if ok, why := Usable(BackendBwrap); !ok {
		t.Skip("not run: " + why)
	}
	if !tmpSized {
		t.Skip("this bwrap has no --size: not run")
	}
	script := fmt.Sprintf(`head -c %d /dev/zero > /tmp/fill; echo "status $?"; stat -c %%s /tmp/fill; rm -f /tmp/fill`, TmpSize+(1<<20))
	out := run(context.Background(), Spec{Args: []string{"bash", "-c", script}, Dir: t.TempDir(), Sandbox: true, Timeout: time.Minute}, BackendBwrap)
	if !out.Sandboxed || out.Err != nil {
		t.Fatalf("sandboxed %v, err %v, stderr %s", out.Sandboxed, out.Err, out.Stderr)
	}
	fields := strings.Fields(string(out.Stdout))
	if len(fields) != 3 || fields[1] == "0" {
		t.Fatalf("stdout %q, stderr %q; want a failed write", out.Stdout, out.Stderr)
	}
	if size, _ := strconv.Atoi(fields[2]); size > TmpSize {
		t.Errorf("/tmp took %d bytes, more than %d", size, TmpSize)
	}
	if !bytes.Contains(out.Stderr, []byte("No space left")) {
		t.Errorf("stderr %q, want no space left", out.Stderr)
	}
}

func TestTail(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"line1\nline2\nline3\n", 8, "line3"},
		{"abcdefghij", 4, "ghij"},
	}
	for _, c := range cases {
		if got := Tail([]byte(c.in), c.n); got != c.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
