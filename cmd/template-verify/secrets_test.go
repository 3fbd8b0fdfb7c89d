package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/secrets"
)

// childEnv makes the test binary act as a tool process: it runs startup,
// as main does, and then prints what its children can read.
const childEnv = "TEMPLATE_VERIFY_TEST_ENVIRON_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(secretsChild())
	}
	switch os.Getenv(processModeEnv) {
	case "main":
		mainChild()
	case "reaper":
		os.Exit(reaperChild())
	}
	os.Exit(m.Run())
}

// secretsChild runs startup, then, with and without the sandbox, a script
// that prints the environment of every process it can see, its parent's
// and grandparent's (the reaper and this process) first.
func secretsChild() int {
	if err := startup(); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		return 2
	}
	script := `
gp=$(awk '{print $4}' /proc/$PPID/stat)
echo "== ppid $PPID gp $gp"
tr '\0' '\n' < /proc/$PPID/environ
tr '\0' '\n' < /proc/$gp/environ
ls -l /proc/$gp/fd/ 2>&1
for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done 2>/dev/null
echo "== end"
`
	for _, boxed := range []bool{false, true} {
		dir, err := os.MkdirTemp("", "secrets-child-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		out := sandbox.Run(context.Background(), sandbox.Spec{
			Args: []string{"bash", "-c", script}, Dir: dir, Sandbox: boxed, Timeout: time.Minute,
		})
		_ = os.RemoveAll(dir)
		fmt.Printf("== sandbox=%v sandboxed=%v err=%v\n", boxed, out.Sandboxed, out.Err)
		os.Stdout.Write(out.Stdout)
		os.Stdout.Write(out.Stderr)
	}
	// The values are still there for the code that needs them.
	fmt.Printf("== accessor %s\n", secrets.Getenv("GITHUB_TOKEN"))
	return 0
}

// TestChildrenCannotReadSecrets: the tool started with tokens and a key in
// its environment; no process it starts can read them from /proc.
func TestChildrenCannotReadSecrets(t *testing.T) {
	secrets := map[string]string{
		"GITHUB_TOKEN":                   "ghs_fakeTokenA1",
		"INPUT_GITHUB-TOKEN":             "ghs_fakeTokenB2",
		"ACTIONS_RUNTIME_TOKEN":          "fakeRuntimeC3",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "fakeIDD4",
		"TEMPLATE_VERIFY_PRIVATE_KEY":    "-----BEGIN FAKE KEY-----\nfakeKeyE5\n-----END FAKE KEY-----",
		"TEMPLATE_VERIFY_WEBHOOK_SECRET": "fakeWebhookF6",
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$") // runs no test if the child mode is lost
	cmd.Env = append(os.Environ(), childEnv+"=1")
	for k, v := range secrets {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	got := stdout.String()
	if !strings.Contains(got, "== sandbox=false") || !strings.Contains(got, "== end") {
		t.Fatalf("the child printed no report:\n%s\n%s", got, stderr.String())
	}
	for k, v := range secrets {
		for _, part := range []string{v, "fakeKeyE5"} {
			if strings.Contains(got[:strings.Index(got, "== accessor")], part) {
				t.Errorf("a child of the tool read %s (%q)", k, part)
				break
			}
		}
	}
	if !strings.Contains(got, "== accessor ghs_fakeTokenA1\n") {
		t.Errorf("the tool lost GITHUB_TOKEN: %s", got[strings.Index(got, "== accessor"):])
	}
	if t.Failed() {
		t.Logf("child output:\n%s", got)
	}
}
