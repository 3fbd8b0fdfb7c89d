package jinja

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWorkerStopsAttacks renders, through Env.RenderContext (the path of
// the restore step and the pytest runner), templates that killed or hung
// the process when gonja ran in it. Each ends in an *Error that names the
// template and the limit, and the next render works.
func TestWorkerStopsAttacks(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // the message has one of these
	}{
		{"nested lists", "{{ " + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + " }}", []string{"stack passed its limit", "MB of memory"}},
		{"string product", "{{ 'x' * 100000000000 }}", []string{"more than 384 MB of memory (limits.render_memory)"}},
		{"center", "{{ 'x' | center(2000000000) }}", []string{"more than 384 MB of memory (limits.render_memory)", "larger than the limit of 8 MiB (limits.render_output)"}},
		{"output", "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", []string{"larger than the limit of 8 MiB (limits.render_output)"}},
		{"endless loop", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", []string{"the check's time limit ran out"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, strict, map[string]string{"tests/test.sh": c.src, "ok.sh": "ok {{ 1 + 1 }}"})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err := e.RenderContext(ctx, "tests/test.sh", nil)
			var je *Error
			if !errors.As(err, &je) || je.File != "repo/tpl/tests/test.sh" {
				t.Fatalf("error %#v", err)
			}
			ok := false
			for _, w := range c.want {
				ok = ok || strings.Contains(je.Msg, w)
			}
			if !ok {
				t.Errorf("message %q has none of %q", je.Msg, c.want)
			}
			if out, err := e.Render("ok.sh", nil); err != nil || out != "ok 2" {
				t.Errorf("the next render: %q %v", out, err)
			}
		})
	}
}

// TestWorkerEnvironment: the worker gets nothing of the tool's environment.
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "fake-secret")
	w, err := startWorker(DefaultLimits.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop()
	env, err := os.ReadFile("/proc/" + itoa(w.cmd.Process.Pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "fake-secret") || !strings.Contains(string(env), workerVar+"=") {
		t.Errorf("worker environment %q", env)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
