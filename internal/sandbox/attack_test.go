package sandbox

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildGetsOnlyStdFDs: a descriptor the tool holds without
// close-on-exec (as a runner's pipes reach it) does not reach the command.
func TestChildGetsOnlyStdFDs(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETFD, 0); e != 0 {
		t.Fatal(e)
	}
	eachMode(t, func(t *testing.T, backend string) {
		out := run(context.Background(), Spec{
			// ls writes to a file, not a pipe: while a pipeline starts,
			// bash itself holds the pipe's ends, and ls would list them.
			Args: []string{"bash", "-c", `ls /proc/$$/fd > fds.txt; sort -n fds.txt | tr '\n' ' '`}, Dir: t.TempDir(),
			Sandbox: backend != BackendNone, Timeout: time.Minute,
		}, backend)
		if out.Err != nil || out.ExitCode != 0 {
			t.Fatalf("err %v, exit %d, stderr %q", out.Err, out.ExitCode, out.Stderr)
		}
		got := strings.TrimSpace(string(out.Stdout))
		if got != "0 1 2" {
			t.Errorf("the command holds descriptors %q, want 0 1 2 (the tool's open pipe is %d)", got, w.Fd())
		}
		logAttack(t, "use a descriptor the tool inherited", backend, got == "0 1 2")
	})
}

// attackScript tries what a hostile pull request would, each line
// printing a marker only when the attack worked. $1 key file, $2 a
// GITHUB_ENV file, $3 a TCP port, $4 a UDP port, $5 a unix socket, $6
// the tool's pid.
const attackScript = `
cat "$1" 2>/dev/null
echo 'EVIL=1' >> "$2" 2>/dev/null && echo WROTE-GITHUB-ENV
(exec 3<>"/dev/tcp/127.0.0.1/$3" && cat <&3) 2>/dev/null
echo UDP-PAYLOAD 2>/dev/null > "/dev/udp/127.0.0.1/$4"
tr '\0' '\n' < "/proc/$6/environ" 2>/dev/null | grep marker-77ab
kill -0 "$6" 2>/dev/null && echo SIGNALLED-TOOL
python3 - "$5" "$6" <<'PY'
import ctypes, socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    print("UNIX-CONNECTED")
except OSError:
    pass
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[2])
if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
    print("PTRACE-ATTACHED")
    libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(64)
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 64)
remote = iovec(0x400000, 64)
if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
    print("VM-READ")
print("py-done")
PY
grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status && echo nnp-on
echo "uid=$(id -u)"
`

// TestConfinedCommandAttacks: under each backend, the command reads no
// key outside its folders, writes no file of the runner, reaches no TCP,
// UDP or unix socket outside, and cannot read, trace or signal the tool.
func TestConfinedCommandAttacks(t *testing.T) {
	t.Setenv("TEMPLATE_VERIFY_ATTACK_MARKER", "marker-77ab")
	eachBackend(t, func(t *testing.T, backend string) { testConfinedCommandAttacks(context.Background(), t, backend) })
	// The backend Run picks by itself (ModeEnv, else auto), as the tool
	// runs; scripts/image/sandbox-proof.sh runs this in a container.
	t.Run("default", func(t *testing.T) {
		ctx, err := WithMode(context.Background(), EnvMode(os.Getenv))
		if err != nil {
			t.Fatal(err)
		}
		if !Available(ctx) {
			t.Skipf("not run: no sandbox here: %s", Unavailable(ctx))
		}
		t.Logf("the default backend here is %s", Backend(ctx))
		testConfinedCommandAttacks(ctx, t, "")
	})
}

// testConfinedCommandAttacks runs attackScript with backend; "" runs it
// through Run with the backend of ctx's mode.
func testConfinedCommandAttacks(ctx context.Context, t *testing.T, backend string) {
	parent, err := os.MkdirTemp("/var/tmp", "sandbox-attack-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	dir := filepath.Join(parent, "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(parent, "key.pem")
	githubEnv := filepath.Join(parent, "github_env")
	if err := os.WriteFile(key, []byte("FAKE-KEY-41c7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(githubEnv, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(githubEnv, 0o666); err != nil {
		t.Fatal(err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HELLO-TCP\n"))
			_ = c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	sock := filepath.Join(parent, "tool.sock")
	unixLn, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer unixLn.Close()
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	spec := Spec{
		Args: []string{"bash", "-c", attackScript, "bash", key, githubEnv,
			strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port), strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port),
			sock, strconv.Itoa(os.Getpid())},
		Dir: dir, Sandbox: true, Timeout: 2 * time.Minute,
	}
	var out Outcome
	if backend == "" {
		backend = Backend(ctx)
		out = Run(ctx, spec)
	} else {
		out = run(context.Background(), spec, backend)
	}
	if out.Err != nil || out.Backend != backend {
		t.Fatalf("backend %q, err %v, stderr %s", out.Backend, out.Err, out.Stderr)
	}
	got := string(out.Stdout)
	// WROTE-GITHUB-ENV alone is no proof: under bwrap the path is in the
	// sandbox's own root; the file's content is checked below.
	attacks := []struct{ name, marker string }{
		{"read a key file outside its folders", "FAKE-KEY-41c7"},
		{"connect to a TCP listener on loopback", "HELLO-TCP"},
		{"connect to a unix socket outside its folders", "UNIX-CONNECTED"},
		{"read the tool's environment in /proc", "marker-77ab"},
		{"ptrace the tool", "PTRACE-ATTACHED"},
		{"process_vm_readv of the tool", "VM-READ"},
	}
	// A process of the same user may signal the tool unless Landlock
	// scopes signals (ABI 6); as root the command runs as nobody.
	if backend == BackendBwrap || os.Getuid() == 0 || landlockABI() >= 6 {
		attacks = append(attacks, struct{ name, marker string }{"signal the tool", "SIGNALLED-TOOL"})
	}
	for _, a := range attacks {
		logAttack(t, a.name, backend, !strings.Contains(got, a.marker))
	}
	b, _ := os.ReadFile(githubEnv)
	logAttack(t, "write to the runner's GITHUB_ENV file", backend, len(b) == 0)
	// A datagram sent before the run ended is queued already.
	_ = udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	buf := make([]byte, 64)
	_, _, err = udp.ReadFrom(buf)
	logAttack(t, "send a UDP datagram to a loopback listener", backend, err != nil)
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", got, out.Stderr)
	}
	for _, want := range []string{"py-done\n", "nnp-on\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout has no %q: %q, stderr %q", want, got, out.Stderr)
		}
	}
	if backend == BackendLandlock && os.Getuid() == 0 && !strings.Contains(got, "uid=65534\n") {
		t.Errorf("as root the command does not run as nobody: %q", got)
	}
}

// logAttack logs one line of the attack table (scripts/image/sandbox-proof.sh
// reads it) and fails the test when the attack worked.
func logAttack(t *testing.T, attack, backend string, held bool) {
	t.Helper()
	if held {
		t.Logf("ATTACK | %s | %s | held", attack, backend)
		return
	}
	t.Errorf("ATTACK | %s | %s | BROKE", attack, backend)
}
