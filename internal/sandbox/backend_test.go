package sandbox

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// eachBackend runs f once for each confining backend, as a subtest named
// after it; a backend that cannot run here is skipped with the reason,
// which the test log shows as not run.
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	for _, b := range []string{BackendBwrap, BackendLandlock} {
		t.Run(b, func(t *testing.T) {
			if ok, why := Usable(b); !ok {
				t.Skipf("not run: the %s backend cannot run here: %s", b, why)
			}
			f(t, b)
		})
	}
}

// eachMode is eachBackend plus the unconfined run.
func eachMode(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	t.Run(BackendNone, func(t *testing.T) { f(t, BackendNone) })
	eachBackend(t, f)
}

func TestDecide(t *testing.T) {
	if c := decide(BackendNone); c.backend != BackendNone || c.forced || !strings.Contains(c.why, "turned off") {
		t.Errorf("none: %+v", c)
	}
	if c := decide("chroot"); !c.forced || c.backend != BackendNone {
		t.Errorf("unknown mode: %+v", c)
	}
	c := decide(ModeAuto)
	bw, _ := Usable(BackendBwrap)
	ll, _ := Usable(BackendLandlock)
	switch {
	case bw && c.backend != BackendBwrap, !bw && ll && c.backend != BackendLandlock, !bw && !ll && c.backend != BackendNone:
		t.Errorf("auto chose %q with bwrap %v, landlock %v", c.backend, bw, ll)
	}
	if !bw && !ll && !strings.Contains(c.why, "bwrap:") {
		t.Errorf("auto without a backend gives no reasons: %q", c.why)
	}
	for _, b := range []string{BackendBwrap, BackendLandlock} {
		ok, why := Usable(b)
		c := decide(b)
		if ok != (c.backend == b) || ok == c.forced {
			t.Errorf("forced %s (usable %v, %s): %+v", b, ok, why, c)
		}
	}
	if err := SetMode("chroot"); err == nil || !strings.Contains(err.Error(), "auto, bwrap, landlock, none") {
		t.Errorf("SetMode(chroot): %v", err)
	}
}

// TestForcedBackendThatCannotRun: a command that asks for the sandbox is
// refused, not run unconfined, when the forced backend cannot run.
func TestForcedBackendThatCannotRun(t *testing.T) {
	modeMu.Lock()
	saved, savedMode := choice, choiceMode
	choice, choiceMode = &chosen{backend: BackendNone, why: "the sandbox landlock was asked for and cannot run here", forced: true}, BackendLandlock
	modeMu.Unlock()
	t.Cleanup(func() { modeMu.Lock(); choice, choiceMode = saved, savedMode; modeMu.Unlock() })
	dir := t.TempDir()
	out := Run(context.Background(), Spec{Args: []string{"bash", "-c", "echo ran > ran"}, Dir: dir, Sandbox: true, Timeout: time.Minute})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "cannot run here") {
		t.Errorf("err %v", out.Err)
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Error("the command ran without the forced sandbox")
	}
	if err := Check(); err == nil {
		t.Error("Check passes a forced backend that cannot run")
	}
}
