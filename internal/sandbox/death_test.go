package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// toolChildEnv makes the test binary a stand-in for the tool: it runs one
// command through Run and never returns by itself.
const toolChildEnv = "TEMPLATE_VERIFY_TEST_TOOL_CHILD"

func TestMain(m *testing.M) {
	if marker := os.Getenv(toolChildEnv); marker != "" {
		dir := os.Getenv("TEMPLATE_VERIFY_TEST_TOOL_DIR")
		script := `setsid bash -c 'exec -a sleep-` + marker + `a sleep 300' >/dev/null 2>&1 < /dev/null &
( exec -a sleep-` + marker + `b sleep 300 ) >/dev/null 2>&1 &
echo started > started
exec sleep 300`
		// The backend comes from ModeEnv, as in the tool.
		ctx, err := WithMode(context.Background(), EnvMode(os.Getenv))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out := Run(ctx, Spec{Args: []string{"bash", "-c", script}, Dir: dir, Sandbox: true})
		fmt.Fprintln(os.Stderr, "Run returned:", out.Err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestToolDeathKillsItsCommands: when the tool is killed (SIGKILL, no
// cleanup of its own), the command it ran and everything that command
// started die too.
func TestToolDeathKillsItsCommands(t *testing.T) {
	eachMode(t, func(t *testing.T, backend string) {
		marker := fmt.Sprintf("tvdeath%d%s", os.Getpid(), backend)
		dir := t.TempDir()
		if backend == BackendBwrap {
			// Outside /tmp: the sandbox has its own.
			var err error
			if dir, err = os.MkdirTemp("/var/tmp", "sandbox-death-"); err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
		}
		tool := exec.Command(os.Args[0], "-test.run=^$")
		tool.Env = append(os.Environ(), toolChildEnv+"="+marker, "TEMPLATE_VERIFY_TEST_TOOL_DIR="+dir,
			ModeEnv+"="+backend)
		if err := tool.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tool.Process.Kill(); _ = tool.Wait() })
		if !waitFor(func() bool {
			_, err := os.Stat(filepath.Join(dir, "started"))
			return err == nil
		}) {
			t.Fatal("the command never started")
		}
		if len(withMarkerNoKill(t, marker)) == 0 {
			t.Fatal("the test's processes are not visible")
		}
		_ = tool.Process.Kill()
		_ = tool.Wait()
		// The reaper sees the lifeline close and kills the rest (under
		// bwrap, --die-with-parent kills the namespace's init); wait for
		// that, with a generous bound.
		waitFor(func() bool { return len(withMarkerNoKill(t, marker)) == 0 })
		if left := withMarker(t, marker); len(left) > 0 {
			t.Errorf("processes outlive the killed tool: %v", left)
		}
	})
}

// waitFor polls cond for up to 20 seconds.
func waitFor(cond func() bool) bool {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}
