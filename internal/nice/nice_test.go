package nice

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A child started at a level, and the child's own children, run at that
// level above this process's.
func TestChildrenInheritTheLevel(t *testing.T) {
	self, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The kernel returns 20 - nice from the raw syscall.
	selfNice := 20 - self
	t.Cleanup(func() { _ = Set(0) })
	for _, n := range []int{0, 7} {
		if err := Set(n); err != nil {
			t.Fatal(err)
		}
		// The child and a grandchild read their nice value (field 19 of
		// /proc/PID/stat).
		cmd := exec.Command("sh", "-c", `awk '{print $19}' /proc/$$/stat; sh -c 'awk "{print \$19}" /proc/$$/stat'`)
		var buf bytes.Buffer
		cmd.Stdout = &buf
		if err := Run(cmd); err != nil {
			t.Fatal(err)
		}
		out := buf.Bytes()
		want := min(selfNice+n, Max)
		fields := strings.Fields(string(out))
		if len(fields) != 2 {
			t.Fatalf("level %d: ps printed %q", n, out)
		}
		for i, f := range fields {
			got, err := strconv.Atoi(f)
			if err != nil || got != want {
				t.Errorf("level %d: process %d runs at nice %q, want %d", n, i, f, want)
			}
		}
	}
}

func TestSetRejectsOutOfRange(t *testing.T) {
	t.Cleanup(func() { _ = Set(0) })
	for _, n := range []int{-1, 20} {
		if err := Set(n); err == nil || !strings.Contains(err.Error(), strconv.Itoa(n)) {
			t.Errorf("Set(%d) = %v, want an error naming %d", n, err, n)
		}
	}
	mu.Lock()
	got := level
	mu.Unlock()
	if got != 0 {
		t.Fatalf("a refused Set changed the level to %d", got)
	}
}

// Threads other than the spawner's keep the process's level: a process
// started directly, not through Start, is not niced.
func TestOtherThreadsKeepTheirLevel(t *testing.T) {
	t.Cleanup(func() { _ = Set(0) })
	if err := Set(9); err != nil {
		t.Fatal(err)
	}
	self, _ := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	for i := 0; i < 20; i++ {
		out, err := exec.Command("sh", "-c", `awk '{print $19}' /proc/$$/stat`).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != strconv.Itoa(20-self) {
			t.Fatalf("a direct child runs at nice %s, want the process's %d", got, 20-self)
		}
	}
}
