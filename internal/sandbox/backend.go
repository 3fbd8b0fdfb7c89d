package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// The backends that confine a command. Run uses the one that Mode chose;
// Outcome.Backend names the one that ran.
const (
	// BackendBwrap is bubblewrap: namespaces without network, a fresh
	// /proc, and a file system of read-only system folders and the
	// command's own folders. It needs user namespaces or CAP_SYS_ADMIN.
	BackendBwrap = "bwrap"
	// BackendLandlock needs no namespaces: Landlock file and TCP rules, a
	// seccomp filter, no_new_privs, and an unprivileged user when the tool
	// is root (see confine.go). It needs Landlock ABI 3 and seccomp.
	BackendLandlock = "landlock"
	// BackendNone runs the command with only the clean environment, the
	// limits and the reaper.
	BackendNone = "none"
)

// ModeAuto picks bwrap when it starts, else landlock, else none.
const ModeAuto = "auto"

// ModeEnv is the environment variable from which the commands take the
// mode when --sandbox is not given (EnvMode): auto, bwrap, landlock or
// none. The package itself reads no environment: the mode is an option
// that the caller passes down (WithMode).
const ModeEnv = "TEMPLATE_VERIFY_SANDBOX"

// NoSandboxEnv set to 1 is the same as ModeEnv=none (when ModeEnv is
// unset or auto).
const NoSandboxEnv = "TEMPLATE_VERIFY_NO_SANDBOX"

// Modes are the values ModeEnv and WithMode take.
var Modes = []string{ModeAuto, BackendBwrap, BackendLandlock, BackendNone}

var (
	// choices caches the decision of each mode: the probes behind it run
	// once per process, and every run of one mode uses one backend.
	choices   = map[string]*chosen{}
	choicesMu sync.Mutex
	probes    = map[string]*probe{}
	probeMu   sync.Mutex
)

// chosen is the backend that runs the sandboxed commands of one mode.
type chosen struct {
	backend string
	// why is the reason the backend is none, or why a forced backend cannot
	// run ("" when it runs).
	why string
	// forced: the mode named a backend that cannot run here; Run then
	// refuses sandboxed commands instead of running them unconfined.
	forced bool
}

// probe is the cached answer whether one backend starts here.
type probe struct {
	once sync.Once
	ok   bool
	why  string
}

// modeKey is the context key of the mode.
type modeKey struct{}

// WithMode returns ctx with the sandbox mode m (auto, bwrap, landlock or
// none) for every Run under it; "" returns ctx as it is (auto, unless an
// outer WithMode chose). It is the option that the commands, the App
// and verify.Options pass down the call chain.
func WithMode(ctx context.Context, m string) (context.Context, error) {
	if m == "" {
		return ctx, nil
	}
	if !validMode(m) {
		return ctx, fmt.Errorf("unknown sandbox %q: it is one of %s", m, strings.Join(Modes, ", "))
	}
	return context.WithValue(ctx, modeKey{}, m), nil
}

// ModeOf is the mode that ctx carries: auto when none was set.
func ModeOf(ctx context.Context) string {
	if m, ok := ctx.Value(modeKey{}).(string); ok && m != "" {
		return m
	}
	return ModeAuto
}

// EnvMode is the mode that the environment asks for through getenv
// (os.Getenv): ModeEnv, or none where NoSandboxEnv=1 and ModeEnv is unset
// or auto; "" when neither is set. The commands call it for their
// --sandbox default.
func EnvMode(getenv func(string) string) string {
	m := getenv(ModeEnv)
	if getenv(NoSandboxEnv) == "1" && (m == "" || m == ModeAuto) {
		return BackendNone
	}
	return m
}

func validMode(m string) bool {
	for _, v := range Modes {
		if m == v {
			return true
		}
	}
	return false
}

// choose returns the backend of mode m, deciding it on first use.
func choose(m string) chosen {
	choicesMu.Lock()
	defer choicesMu.Unlock()
	if c := choices[m]; c != nil {
		return *c
	}
	c := decide(m)
	choices[m] = &c
	if c.backend == BackendNone && !c.forced { // a forced one stops the command (Check) or each run
		slog.Warn("code from pull requests runs WITHOUT a sandbox", "sandbox", m, "reason", c.why)
	}
	return c
}

// current is the backend of ctx's mode.
func current(ctx context.Context) chosen { return choose(ModeOf(ctx)) }

func decide(m string) chosen {
	switch m {
	case BackendBwrap, BackendLandlock:
		if ok, why := Usable(m); !ok {
			return chosen{backend: BackendNone, why: fmt.Sprintf("the sandbox %s was asked for (%s=%s or --sandbox) and cannot run here: %s", m, ModeEnv, m, why), forced: true}
		}
		return chosen{backend: m}
	case BackendNone:
		return chosen{backend: BackendNone, why: fmt.Sprintf("the sandbox is turned off (%s=none, --sandbox none or %s=1)", ModeEnv, NoSandboxEnv)}
	case ModeAuto:
		var whys []string
		for _, b := range []string{BackendBwrap, BackendLandlock} {
			ok, why := Usable(b)
			if ok {
				return chosen{backend: b}
			}
			whys = append(whys, b+": "+why)
		}
		return chosen{backend: BackendNone, why: "no sandbox can start here (" + strings.Join(whys, "; ") + ")"}
	}
	return chosen{backend: BackendNone, why: fmt.Sprintf("unknown sandbox %q in %s: it is one of %s", m, ModeEnv, strings.Join(Modes, ", ")), forced: true}
}

// Usable reports whether backend b starts a command on this machine, and
// why not. Each answer is probed once (a real run of true) and cached.
func Usable(b string) (bool, string) {
	probeMu.Lock()
	p := probes[b]
	if p == nil {
		p = &probe{}
		probes[b] = p
	}
	probeMu.Unlock()
	p.once.Do(func() {
		switch b {
		case BackendBwrap:
			p.ok, p.why = probeBwrap()
		case BackendLandlock:
			p.ok, p.why = probeLandlock()
		case BackendNone:
			p.ok = true
		default:
			p.why = fmt.Sprintf("unknown sandbox %q", b)
		}
	})
	return p.ok, p.why
}

// Available reports whether the sandboxed commands under ctx's mode
// run confined (bwrap or landlock). The answer is decided once per mode.
func Available(ctx context.Context) bool {
	return current(ctx).backend != BackendNone
}

// Unavailable says why Available is false ("" when it is true).
func Unavailable(ctx context.Context) string {
	return current(ctx).why
}

// Backend names the backend that runs the sandboxed commands under ctx's
// mode: bwrap, landlock or none.
func Backend(ctx context.Context) string {
	return current(ctx).backend
}

// Label names the backend that runs the sandboxed commands under ctx's
// mode for a sentence such as "runs in a bubblewrap sandbox":
// "bubblewrap", "Landlock and seccomp" (callers say it only when
// Available).
func Label(ctx context.Context) string {
	return LabelOf(current(ctx).backend)
}

// LabelOf is Label for backend; a backend that is not confining (none,
// or "" from a record that predates Outcome.Backend) is "bubblewrap",
// the only one there was.
func LabelOf(backend string) string {
	if backend == BackendLandlock {
		return "Landlock and seccomp"
	}
	return "bubblewrap"
}

// Check returns an error when ctx's mode names a backend that cannot run
// here, so that a command can stop at start rather than fail every run.
func Check(ctx context.Context) error {
	if c := current(ctx); c.forced {
		return errors.New(c.why)
	}
	return nil
}

// Describe is one sentence for a report: where code from the pull request
// runs under ctx's mode and what it can reach.
func Describe(ctx context.Context) string {
	switch c := current(ctx); c.backend {
	case BackendBwrap:
		return "Scripts and tests from the PR run in a bubblewrap sandbox without network."
	case BackendLandlock:
		return "Scripts and tests from the PR run in the landlock sandbox (bubblewrap is not usable here): Landlock and seccomp leave them no network and only their own folders to write, and as root the tool runs them as an unprivileged user (see SECURITY.md)."
	default:
		return "Scripts and tests from the PR run WITHOUT a sandbox: " + c.why + ". They get a clean environment without tokens, time limits, and a reaper that kills every process they leave, but they can read every file of the tool's user (the checkout, a key file), write outside their folder, and reach the network."
	}
}

// probeBwrap starts bwrap with the same flags as a real run: in some
// containers bwrap starts but cannot mount /proc for a new PID namespace.
// An older bwrap without --size gets a /tmp without a size limit.
func probeBwrap() (bool, string) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return false, "bwrap is not installed"
	}
	dir := os.TempDir()
	var first string
	for _, sized := range []bool{true, false} {
		tmpSized = sized
		args := bwrapArgs(Spec{Args: []string{"true"}, Dir: dir}, dir)
		probe := exec.Command(args[0], args[1:]...)
		probe.Env = []string{"PATH=" + basePath()}
		out, err := probe.CombinedOutput()
		if err == nil {
			return true, ""
		}
		if first == "" {
			first = strings.TrimSpace(Tail(out, 200))
		}
	}
	return false, fmt.Sprintf("bwrap cannot start here: %s", first)
}

// probeLandlock checks the kernel's Landlock ABI and seccomp, then runs
// true under the confinement, which proves the rest (a container's
// seccomp profile may refuse the Landlock calls, for example).
func probeLandlock() (bool, string) {
	abi := landlockABI()
	if abi < minLandlockABI {
		return false, fmt.Sprintf("the kernel's Landlock ABI is %d, below %d (Landlock needs Linux 6.2 and \"landlock\" in the kernel's lsm= list)", abi, minLandlockABI)
	}
	if _, err := seccompFilter(); err != nil {
		return false, err.Error()
	}
	dir, err := os.MkdirTemp("", "tv-landlock-probe-")
	if err != nil {
		return false, fmt.Sprintf("landlock probe: %v", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := run(ctx, Spec{Args: []string{"true"}, Dir: dir}, BackendLandlock)
	if out.Err != nil || out.ExitCode != 0 {
		return false, fmt.Sprintf("a confined run failed: exit %d, %v: %s", out.ExitCode, out.Err, Tail(out.Stderr, 200))
	}
	return true, ""
}
