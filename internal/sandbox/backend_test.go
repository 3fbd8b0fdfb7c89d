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
	if _, err := WithMode(context.Background(), "chroot"); err == nil || !strings.Contains(err.Error(), "auto, bwrap, landlock, none") {
		t.Errorf("WithMode(chroot): %v", err)
	}
}

// TestForcedBackendThatCannotRun: a command that asks for the sandbox is
// refused, not run unconfined, when the forced backend cannot run.
func TestForcedBackendThatCannotRun(t *testing.T) {
	choicesMu.Lock()
	saved := choices[BackendLandlock]
	choices[BackendLandlock] = &chosen{backend: BackendNone, why: "the sandbox landlock was asked for and cannot run here", forced: true}
	choicesMu.Unlock()
	t.Cleanup(func() { choicesMu.Lock(); choices[BackendLandlock] = saved; choicesMu.Unlock() })
	ctx, err := WithMode(context.Background(), BackendLandlock)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := Run(ctx, Spec{Args: []string{"bash", "-c", "echo ran > ran"}, Dir: dir, Sandbox: true, Timeout: time.Minute})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "cannot run here") {
		t.Errorf("err %v", out.Err)
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Error("the command ran without the forced sandbox")
	}
	if err := Check(ctx); err == nil {
		t.Error("Check passes a forced backend that cannot run")
	}
}

// TestModeIsAnOption: the mode is an option of each call, not of the
// process: under one context a sandboxed command runs with no sandbox,
// under another (in the same process, after it) with the backend that
// auto picks, and the environment variable changes neither.
func TestModeIsAnOption(t *testing.T) {
	t.Setenv(ModeEnv, BackendNone)
	none, err := WithMode(context.Background(), BackendNone)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Args: []string{"true"}, Dir: t.TempDir(), Sandbox: true, Timeout: time.Minute}
	if out := Run(none, spec); out.Err != nil || out.Backend != BackendNone {
		t.Errorf("mode none: backend %q, err %v", out.Backend, out.Err)
	}
	want := decide(ModeAuto).backend
	if out := Run(context.Background(), spec); out.Err != nil || out.Backend != want {
		t.Errorf("no mode (auto) after a run with none, %s=none in the environment: backend %q, err %v; want %q", ModeEnv, out.Backend, out.Err, want)
	}
	if got := ModeOf(none); got != BackendNone {
		t.Errorf("ModeOf = %q", got)
	}
	for _, tc := range []struct{ mode, no, want string }{
		{"", "", ""}, {"", "1", BackendNone}, {ModeAuto, "1", BackendNone}, {BackendBwrap, "1", BackendBwrap}, {BackendLandlock, "", BackendLandlock},
	} {
		env := map[string]string{ModeEnv: tc.mode, NoSandboxEnv: tc.no}
		if got := EnvMode(func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("EnvMode(%s=%q, %s=%q) = %q, want %q", ModeEnv, tc.mode, NoSandboxEnv, tc.no, got, tc.want)
		}
	}
}
