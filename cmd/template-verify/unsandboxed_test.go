package main

import (
	"context"
	"strings"
	"testing"
)

// TestServeRefusesToRunUnsandboxed: where bubblewrap cannot start, serve
// stops with exit 2 and names the flag, unless the flag or its variable
// allows it.
func TestServeRefusesToRunUnsandboxed(t *testing.T) {
	cases := []struct {
		name      string
		env       map[string]string
		args      []string
		available bool
		refused   bool
	}{
		{"no sandbox, no flag", nil, nil, false, true},
		{"no sandbox, flag", nil, []string{"--allow-unsandboxed"}, false, false},
		{"no sandbox, variable", map[string]string{"TEMPLATE_VERIFY_ALLOW_UNSANDBOXED": "1"}, nil, false, false},
		{"no sandbox, variable false", map[string]string{"TEMPLATE_VERIFY_ALLOW_UNSANDBOXED": "0"}, nil, false, true},
		{"sandbox", nil, nil, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearServeEnv(t)
			old := sandboxAvailable
			sandboxAvailable = func(context.Context) bool { return tc.available }
			t.Cleanup(func() { sandboxAvailable = old })
			t.Setenv("TEMPLATE_VERIFY_PRIVATE_KEY", "not a key")
			t.Setenv("TEMPLATE_VERIFY_WEBHOOK_SECRET", "s")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			// An empty data folder stops the start right after the
			// sandbox check, in app.New.
			args := append([]string{"serve", "--app-id", "1", "--data-dir", ""}, tc.args...)
			code, _, stderr := invoke(t, args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if got := strings.Contains(stderr, "--allow-unsandboxed"); got != tc.refused {
				t.Errorf("refused %v, want %v; stderr:\n%s", got, tc.refused, stderr)
			}
			if !tc.refused && !strings.Contains(stderr, "the data folder is missing") {
				t.Errorf("the start did not go on past the sandbox check:\n%s", stderr)
			}
		})
	}
}
