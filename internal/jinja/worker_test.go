package jinja

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/config"
)

// roomLimit is the check's time limit in a test that asserts a memory,
// stack or output limit: far more than that limit needs, so the time limit
// never fires first, even on a loaded machine. The per-render limit
// (Limits.Time, 20 s by default) is raised to the same for these cases.
const roomLimit = 2 * time.Minute

// TestWorkerStopsAttacks renders, through Env.RenderContext (the path of
// the restore step and the pytest runner), templates that killed or hung
// the process when gonja ran in it. Each ends in an *Error that names the
// template and the limit, and the next render works.
func TestWorkerStopsAttacks(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // the message has one of these
		// timeout is the check's time limit. A case that asserts another
		// limit gets roomLimit: that limit trips within seconds, and on a
		// loaded machine (load 20 on 2 cores) 3 s of wall time was not
		// enough, so the time limit fired first (issue 20). Only the loop
		// that nothing else stops gets a short limit (it burns a core
		// until then).
		timeout time.Duration
	}{
		{"nested lists", "{{ " + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + " }}", []string{"stack passed its limit", "MB of memory"}, roomLimit},
		{"string product", "{{ 'x' * 100000000000 }}", []string{"more than 384 MB of memory (limits.render_memory)"}, roomLimit},
		{"center", "{{ 'x' | center(2000000000) }}", []string{"center(2000000000) would make more than the 8 MiB of output that limits.render_output allows"}, roomLimit},
		{"indent", "{{ 'x\ny' | indent(width=2000000000) }}", []string{"indent(2000000000) would make more than the 8 MiB of output that limits.render_output allows"}, roomLimit},
		{"output", "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", []string{"larger than the limit of 8 MiB (limits.render_output)"}, roomLimit},
		// The loop's garbage can pass the memory limit before the time
		// limit ends it (seen with -race at load 15): either stops it.
		{"endless loop", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", []string{"the check's time limit ran out", "MB of memory (limits.render_memory)"}, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, strict, map[string]string{"tests/test.sh": c.src, "ok.sh": "ok {{ 1 + 1 }}"})
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			var err error
			if c.timeout == roomLimit {
				lim := DefaultLimits
				lim.Time = roomLimit
				r := NewRenderer(lim)
				_, err = r.Render(ctx, e, "tests/test.sh", nil)
				r.Close()
			} else {
				_, err = e.RenderContext(ctx, "tests/test.sh", nil)
			}
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
	// Right after Start the process may still be in execve, where its
	// environ reads empty: read until the new program's is there.
	var env []byte
	for deadline := time.Now().Add(time.Minute); len(env) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if env, err = os.ReadFile("/proc/" + itoa(w.cmd.Process.Pid) + "/environ"); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(string(env), "fake-secret") || !strings.Contains(string(env), workerVar+"=") {
		t.Errorf("worker environment %q", env)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestWorkerVariables: the variable types a config decodes to reach the
// worker with their types; a type the worker cannot receive is an error
// that says so, and the worker goes on.
func TestWorkerVariables(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"v.txt": "{{ i + 1 }} {{ f }} {{ s }} {{ b }} {{ n is none }} {{ l[1] }} {{ m.k }} {{ d }}"})
	vars := map[string]any{"i": 1, "f": 1.5, "s": "x", "b": true, "n": nil, "l": []any{1, "two"}, "m": map[string]any{"k": "v"},
		"d": time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}
	want, err := e.renderLocal("v.txt", vars)
	if err != nil || !strings.HasPrefix(want, "2 1.5 x True True two v 2024-01-02") {
		t.Fatalf("in process: %q %v", want, err)
	}
	if out, err := e.Render("v.txt", vars); err != nil || out != want {
		t.Errorf("got %q %v, want %q", out, err, want)
	}
	type custom struct{ A int }
	r := NewRenderer(DefaultLimits)
	defer r.Close()
	_, err = r.Render(context.Background(), e, "v.txt", map[string]any{"i": custom{1}})
	var je *Error
	if !errors.As(err, &je) || !strings.Contains(je.Msg, "the variables cannot be sent to the render worker") {
		t.Errorf("unregistered type: %v", err)
	}
	if out, err := r.Render(context.Background(), e, "v.txt", vars); err != nil || out != want {
		t.Errorf("after the error: %q %v", out, err)
	}
}

func TestLimitsOf(t *testing.T) {
	cases := []struct {
		in   config.Limits
		want Limits
	}{
		{config.Limits{}, Limits{Time: 20 * time.Second, Output: 8 << 20, Memory: 384 << 20}},
		{config.Limits{RenderOutput: 1 << 40, RenderMemory: 100000, RenderTime: config.Duration{Duration: time.Hour}}, Limits{Time: 2 * time.Minute, Output: 32 << 20, Memory: 448 << 20}},
	}
	for _, c := range cases {
		if got := LimitsOf(c.in); got != c.want {
			t.Errorf("LimitsOf(%+v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// TestWorkerReusesItsBuffers: the worker renders every job into one buffer
// and the reader decodes every answer into one. Outputs that shrink, an
// empty one, an error and one past the kept buffer size in between must
// each come back whole, and a string already returned must not change.
func TestWorkerReusesItsBuffers(t *testing.T) {
	e := newTestEnv(t, strict, map[string]string{"t.txt": "{{ 'x' * n }}{{ tail }}", "bad.txt": "{{ missing }}"})
	r := NewRenderer(DefaultLimits)
	defer r.Close()
	render := func(name string, n int, tail string) (string, error) {
		return r.Render(context.Background(), e, name, map[string]any{"n": n, "tail": tail})
	}
	first, err := render("t.txt", 5000, "A")
	if err != nil || first != strings.Repeat("x", 5000)+"A" {
		t.Fatalf("first: %d bytes, %v", len(first), err)
	}
	for i, c := range []struct {
		name string
		n    int
		tail string
		bad  bool
	}{
		{"t.txt", 10, "B", false},
		{"t.txt", 0, "", false},
		{"bad.txt", 0, "", true},
		{"t.txt", 3, "C", false},
		{"t.txt", keepBuffer + 10, "D", false},
		{"t.txt", 2, "E", false},
	} {
		out, err := render(c.name, c.n, c.tail)
		if c.bad {
			if err == nil || out != "" {
				t.Errorf("%d: %q %v, want an error", i, out, err)
			}
			continue
		}
		if want := strings.Repeat("x", c.n) + c.tail; err != nil || out != want {
			t.Errorf("%d: %d bytes %v, want %d", i, len(out), err, len(want))
		}
	}
	if first != strings.Repeat("x", 5000)+"A" {
		t.Error("a later render changed an earlier output")
	}
}
