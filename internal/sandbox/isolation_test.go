package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSandboxSeesOnlyItsFolders: a file outside the folders of the run (a
// key in another folder, this repository's README) cannot be read from
// the sandbox, nor the host's /proc, nor a loopback TCP listener; git
// works in a repository the tool made.
func TestSandboxSeesOnlyItsFolders(t *testing.T) {
	eachBackend(t, testSandboxSeesOnlyItsFolders)
}

func testSandboxSeesOnlyItsFolders(t *testing.T, backend string) {
	t.Setenv("TEMPLATE_VERIFY_ISOLATION_MARKER", "marker-4d1c")
	parent, err := os.MkdirTemp("/var/tmp", "sandbox-iso-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	dir := filepath.Join(parent, "dir")
	keys := filepath.Join(parent, "keys")
	for _, d := range []string{dir, keys} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(keys, "app.pem")
	if err := os.WriteFile(key, []byte("FAKE-KEY-9f2e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readme, err := filepath.Abs("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(readme); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HELLO-FROM-HOST\n"))
			_ = c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	script := `
cat "$1" 2>/dev/null
cat "$2" 2>/dev/null | head -c 200
ls "$(dirname "$1")" 2>/dev/null && echo LISTED-KEY-FOLDER
cat /proc/*/environ 2>/dev/null | tr '\0' '\n' | grep marker-4d1c
(exec 3<>"/dev/tcp/127.0.0.1/$3" && cat <&3) 2>/dev/null
python3 -c 'print("py-ok")'
git status --porcelain >/dev/null && git commit -q --allow-empty -m x && echo git-ok
echo done
`
	git := exec.Command("git", "init", "-q", dir)
	if b, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, b)
	}
	out := run(context.Background(), Spec{
		Args:    []string{"bash", "-c", script, "bash", key, readme, port},
		Dir:     dir,
		Env:     []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"},
		Sandbox: true,
		Timeout: time.Minute,
	}, backend)
	if !out.Sandboxed || out.Backend != backend || out.Err != nil {
		t.Fatalf("sandboxed %v, backend %q, err %v, stderr %s", out.Sandboxed, out.Backend, out.Err, out.Stderr)
	}
	got := string(out.Stdout)
	for _, leak := range []string{"FAKE-KEY-9f2e", "template-verify", "LISTED-KEY-FOLDER", "marker-4d1c", "HELLO-FROM-HOST"} {
		if strings.Contains(got, leak) {
			t.Errorf("the sandbox reached %q:\n%s", leak, got)
		}
	}
	for _, want := range []string{"py-ok\n", "git-ok\n", "done\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout has no %q: %q, stderr %q", want, got, out.Stderr)
		}
	}
}

// TestNoProcessOutlivesRun: a command that starts a process in a new
// session (setsid) and one through a double fork leaves nothing behind,
// with and without the sandbox.
func TestNoProcessOutlivesRun(t *testing.T) {
	eachMode(t, func(t *testing.T, backend string) {
		marker := fmt.Sprintf("tvmark%d%s", os.Getpid(), backend)
		script := `
setsid bash -c 'exec -a sleep-` + marker + `a sleep 300' >/dev/null 2>&1 < /dev/null &
( ( exec -a sleep-` + marker + `b sleep 300 ) & ) >/dev/null 2>&1
( ( setsid bash -c 'exec -a sleep-` + marker + `c sleep 300' ) & ) >/dev/null 2>&1 < /dev/null
( exec -a sleep-` + marker + `d nohup sleep 300 ) >/dev/null 2>&1 &
sleep 0.2 # let setsid run before the command exits
disown -a
echo started
`
		out := run(context.Background(), Spec{
			Args: []string{"bash", "-c", script}, Dir: t.TempDir(),
			Sandbox: backend != BackendNone, Timeout: time.Minute,
		}, backend)
		if out.Err != nil || out.ExitCode != 0 || !bytes.Contains(out.Stdout, []byte("started")) {
			t.Fatalf("err %v, exit %d, stdout %q, stderr %q", out.Err, out.ExitCode, out.Stdout, out.Stderr)
		}
		left := withMarker(t, marker)
		if len(left) > 0 {
			t.Errorf("processes outlive the run: %s", strings.Join(left, "; "))
		}
		logAttack(t, "leave a setsid or double-forked process", backend, len(left) == 0)
	})
}

// withMarker lists the live processes whose command line holds marker and
// kills them, so that a failing test leaves nothing behind either.
func withMarker(t *testing.T, marker string) []string {
	t.Helper()
	return markerProcs(t, marker, true)
}

// withMarkerNoKill lists them only.
func withMarkerNoKill(t *testing.T, marker string) []string {
	t.Helper()
	return markerProcs(t, marker, false)
}

func markerProcs(t *testing.T, marker string, kill bool) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(stat[i:], []byte(") Z")) {
			continue // a zombie is dead already
		}
		found = append(found, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		if p, err := os.FindProcess(pid); kill && err == nil {
			_ = p.Kill()
		}
	}
	return found
}
