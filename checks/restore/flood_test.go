package restore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/sandbox"
)

// TestStepCannotFloodOrLinger: a restore step that leaves a process in its
// own session, looks for a token in every /proc/*/environ and then prints
// without end. The scenario must end at its time limit as a failure, with
// capped output and no process left; where the sandbox runs, also no
// secret seen and nothing outside changed (without it the test process's
// own environment is readable, which the real binary avoids with
// secrets.Hide, and the tool's user's files are writable).
func TestStepCannotFloodOrLinger(t *testing.T) {
	const secret = "ghs_FAKEfloodSecret0123"
	t.Setenv("GITHUB_TOKEN", secret)
	mark := "TVLINGER" + strings.ReplaceAll(t.Name(), "/", "")
	out := outsideDir(t)
	before := snapshot(t, out)
	step := "( setsid bash -c 'sleep 300; : " + mark + "' > /dev/null 2>&1 & )\n" +
		"grep -a -o 'ghs_FAKE[A-Za-z0-9]*' /proc/*/environ >&2 || true\n" +
		"touch OUT/touched 2>/dev/null || true\n" +
		"yes FLOOD-LINE-FLOOD-LINE\n"
	r := attackRunner(t, strings.ReplaceAll(step, "OUT", out), "")
	r.opts.ScenarioTimeout = 3 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	o := r.run(ctx, Scenario{Name: "no-change"})
	if ctx.Err() != nil {
		t.Fatalf("the scenario ran until the test's deadline (%s)", o.Verdict)
	}
	if o.Verdict != TimedOut {
		t.Errorf("verdict %s (%v), want %s", o.Verdict, o.Diffs, TimedOut)
	}
	if len(o.Stderr) > 4096 {
		t.Errorf("the outcome keeps %d bytes of stderr", len(o.Stderr))
	}
	if sandbox.Available(context.Background()) && strings.Contains(o.Stderr, secret) {
		t.Errorf("the step read the token from /proc: %q", o.Stderr)
	}
	// Without bubblewrap a step can write where the tool's user can
	// (SECURITY.md says so); with it, nothing outside changes.
	if after := snapshot(t, out); sandbox.Available(context.Background()) && !mapsEqual(before, after) {
		t.Errorf("a file outside the scenario changed: %q", keys(after))
	}
	// The reaper kills the group and every descendant when the step ends;
	// give the kernel a moment to remove them.
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := procsWith(t, mark)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes outlive the scenario: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// procsWith lists the pids whose command line holds mark.
func procsWith(t *testing.T, mark string) []string {
	t.Helper()
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []string
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), mark) {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}
