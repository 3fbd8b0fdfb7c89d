package secrets

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

const prGetDumpable = 3 // PR_GET_DUMPABLE

const childEnv = "TEMPLATE_VERIFY_TEST_HIDE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(hideChild())
	}
	os.Exit(m.Run())
}

// hideChild calls Hide and prints its own environment block as the kernel
// shows it, its open descriptors, and the values Lookup gives.
func hideChild() int {
	if err := Hide(); err != nil {
		fmt.Fprintln(os.Stderr, "hide:", err)
		return 2
	}
	// A non-dumpable process's /proc files belong to root (environ mode
	// 0400, fd 0500): run as a non-root user, as on GitHub's runner, it
	// cannot open even its own (EACCES; root passes by CAP_DAC_OVERRIDE).
	// So the child reports the dumpable flag Hide left, then sets it
	// again to read its environment block as the kernel shows it.
	dumpable, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetDumpable, 0, 0)
	fmt.Printf("dumpable %d\n", dumpable)
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 1, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "PR_SET_DUMPABLE:", e)
		return 2
	}
	environ, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("environ %q\n", environ)
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		target, _ := os.Readlink("/proc/self/fd/" + fd.Name())
		fmt.Printf("fd %s %s\n", fd.Name(), target)
	}
	for _, name := range []string{"GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "TEMPLATE_VERIFY_PRIVATE_KEY", "PLAIN"} {
		v, ok := Lookup(name)
		fmt.Printf("lookup %s %v %d %q\n", name, ok, len(v), v[:min(len(v), 20)])
	}
	return 0
}

func TestHideReexecutesWithoutSecrets(t *testing.T) {
	big := strings.Repeat("k", 100<<10)             // larger than a pipe's default buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$") // runs no test if the child mode is lost
	cmd.Env = append(os.Environ(), childEnv+"=1", "PLAIN=visible",
		"GITHUB_TOKEN=ghs_fake1", "INPUT_GITHUB-TOKEN=ghs_fake2",
		"TEMPLATE_VERIFY_PRIVATE_KEY=-----BEGIN-----\nfake3"+big+"\n-----END-----")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v: %s", err, stderr.String())
	}
	got := stdout.String()
	dumpable, got, _ := strings.Cut(got, "\n")
	if dumpable != "dumpable 0" {
		t.Errorf("after Hide the process is not non-dumpable: %q", dumpable)
	}
	environ, _, _ := strings.Cut(got, "\n")
	for _, secret := range []string{"ghs_fake1", "ghs_fake2", "fake3", "GITHUB_TOKEN", "PRIVATE_KEY"} {
		if strings.Contains(environ, secret) {
			t.Errorf("/proc/self/environ holds %q after Hide", secret)
		}
	}
	if !strings.Contains(environ, "PLAIN=visible") {
		t.Errorf("an ordinary variable is gone: %s", environ)
	}
	_, fd, ok := strings.Cut(environ, HandoverEnv+"=")
	fd, _, _ = strings.Cut(fd, `\x00`)
	if !ok || fd == "" {
		t.Errorf("the child was not re-executed with %s: %.300s", HandoverEnv, environ)
	} else if strings.Contains(got, "fd "+fd+" pipe:") {
		t.Errorf("the handover pipe %s is still open", fd)
	}
	for _, want := range []string{
		"lookup GITHUB_TOKEN true 9 \"ghs_fake1\"\n",
		"lookup INPUT_GITHUB-TOKEN true 9 \"ghs_fake2\"\n",
		fmt.Sprintf("lookup TEMPLATE_VERIFY_PRIVATE_KEY true %d \"-----BEGIN-----\\nfake\"\n", 35+len(big)),
		"lookup PLAIN true 7 \"visible\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("child output has no %q: %s", want, got[strings.Index(got, "\nfd "):])
		}
	}
}

func TestIsSecret(t *testing.T) {
	cases := []struct {
		name string
		want bool
	}{
		{"GITHUB_TOKEN", true},
		{"GH_TOKEN", true},
		{"INPUT_GITHUB-TOKEN", true},
		{"INPUT_GITHUB_TOKEN", true},
		{"ACTIONS_RUNTIME_TOKEN", true},
		{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", true},
		{"TEMPLATE_VERIFY_PRIVATE_KEY", true},
		{"TEMPLATE_VERIFY_WEBHOOK_SECRET", true},
		{"TEMPLATE_VERIFY_SOMETHING_KEY", true},
		{"INPUT_SIGNING-KEY", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"SSH_AUTH_SOCK", true},
		{"github_token", true},
		{HandoverEnv, false},
		{"PATH", false},
		{"HOME", false},
		{"GITHUB_EVENT_PATH", false},
		{"INPUT_CONFIG", false},
		{"TEMPLATE_VERIFY_NICE", false},
		{"KEYBOARD", false},
	}
	for _, c := range cases {
		if got := IsSecret(c.name); got != c.want {
			t.Errorf("IsSecret(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLookupFallsBackToTheEnvironment(t *testing.T) {
	t.Setenv("TEMPLATE_VERIFY_LOOKUP_TEST", "x")
	if v, ok := Lookup("TEMPLATE_VERIFY_LOOKUP_TEST"); !ok || v != "x" {
		t.Errorf("Lookup = %q, %v", v, ok)
	}
	if v := Getenv("TEMPLATE_VERIFY_NO_SUCH_VARIABLE"); v != "" {
		t.Errorf("Getenv = %q", v)
	}
}
