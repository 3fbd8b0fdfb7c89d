package sandbox

import (
	"os/exec"
	"slices"
	"testing"
)

// TestChildrenOfListsTheChildren: the children files name the same
// children as the scan of every process's stat file, and a child that was
// reaped is in neither.
func TestChildrenOfListsTheChildren(t *testing.T) {
	var cmds []*exec.Cmd
	for range 2 {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	stop := func(c *exec.Cmd) {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	defer func() {
		for _, c := range cmds {
			stop(c)
		}
	}()
	got, ok := childrenOf()
	if !ok {
		t.Skip("this kernel has no /proc/self/task/TID/children files; the reaper scans /proc")
	}
	scanned := scanChildren()
	for _, c := range cmds {
		if !slices.Contains(got, c.Process.Pid) {
			t.Errorf("childrenOf %v misses child %d", got, c.Process.Pid)
		}
		if !slices.Contains(scanned, c.Process.Pid) {
			t.Errorf("scanChildren %v misses child %d", scanned, c.Process.Pid)
		}
	}
	gone := cmds[0].Process.Pid
	stop(cmds[0])
	got, _ = childrenOf()
	if slices.Contains(got, gone) || slices.Contains(scanChildren(), gone) {
		t.Errorf("the reaped child %d is still listed: %v", gone, got)
	}
}
