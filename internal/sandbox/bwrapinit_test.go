package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestBwrapInitIsHeld: Run holds a pidfd on bubblewrap's init while the
// command runs, and once bubblewrap has exited, waiting on it returns only
// after the init is gone. Without the pidfd, Run could return while the
// namespace still holds processes of the command.
func TestBwrapInitIsHeld(t *testing.T) {
	if ok, why := Usable(BackendBwrap); !ok {
		t.Skip(why)
	}
	if !pidfdOK() {
		t.Skip("the kernel has no pidfd_open")
	}
	dir := t.TempDir()
	args := bwrapArgs(Spec{Args: []string{"bash", "-c", "read -r line"}, Dir: dir}, dir)
	prog, err := exec.LookPath(args[0])
	if err != nil {
		t.Fatal(err)
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, append([]string{"--info-fd", strconv.Itoa(infoFD)}, args[1:]...)...)
	cmd.ExtraFiles = []*os.File{infoW}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = infoW.Close()
	// The command waits for a line, so bubblewrap runs until the test
	// has looked: no timing.
	init := <-watchInit(infoR, cmd.Process.Pid)
	if init.pidfd < 0 {
		_ = stdin.Close()
		_ = cmd.Wait()
		t.Fatal("no pidfd on bubblewrap's init while the command runs")
	}
	_, _ = stdin.Write([]byte("go\n"))
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bwrap: %v", err)
	}
	if !init.wait(time.Minute) {
		t.Fatal("bubblewrap's init did not exit")
	}
}

// TestWatchInitRefusesAnotherParent: a pid whose parent is not the given
// bubblewrap gets no pidfd, so that no kill can reach a process that got
// a reused pid.
func TestWatchInitRefusesAnotherParent(t *testing.T) {
	if !pidfdOK() {
		t.Skip("the kernel has no pidfd_open")
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	for _, tc := range []struct {
		name   string
		parent int
		held   bool
	}{
		{"its parent", os.Getpid(), true},
		{"another parent", os.Getpid() + 1, false},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteString(`{"child-pid": ` + strconv.Itoa(sleeper.Process.Pid) + "}\n"); err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		init := <-watchInit(r, tc.parent)
		if held := init.pidfd >= 0; held != tc.held {
			t.Errorf("%s: pidfd held %v, want %v", tc.name, held, tc.held)
		}
		if init.pidfd >= 0 {
			_ = unix.Close(init.pidfd)
		}
	}
}
