package pytest

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestScenarioCacheKeepsOnlyPassingRunsOfTheSameRunner drives the cache
// with a counting run and a fake clock.
func TestScenarioCacheKeepsOnlyPassingRunsOfTheSameRunner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runner := filepath.Join(dir, "pytest_runner.py")
	pyFile := filepath.Join(dir, "python3")
	writeExec(t, runner, "v1\n")
	writeExec(t, pyFile, "v1\n")
	py := &python{Path: pyFile, Pytest: "7.2.1"}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	runs, failing := 0, false
	c := newScenarioCache(func(_ context.Context, _ runnerSpec, _ string, list []scenario) ([]scenarioResult, error) {
		runs++
		out := make([]scenarioResult, len(list))
		for i, s := range list {
			out[i] = scenarioResult{Name: s.Name, Sandboxed: true}
			if failing {
				out[i].Problems = []string{"reported nothing"}
			}
		}
		return out, nil
	}, func() time.Time { return now })
	spec := runnerSpec{Python: pyFile, Runner: runner, Command: "{python} {runner}", Result: "out.json", Env: map[string]string{"A": "1"}, Timeout: time.Minute}
	list := scenarios()
	get := func(s runnerSpec) []scenarioResult {
		t.Helper()
		res, _, err := c.get(context.Background(), s, py, dir, list)
		if err != nil || len(res) != len(list) {
			t.Fatalf("get: %d results, %v", len(res), err)
		}
		return res
	}
	with := func(f func(*runnerSpec)) runnerSpec {
		s := spec
		s.Env = map[string]string{"A": "1"}
		f(&s)
		return s
	}

	steps := []struct {
		name     string
		do       func()
		wantRuns int
	}{
		{"first run", func() { get(spec) }, 1},
		{"the same runner is answered from the cache", func() {
			res := get(spec)
			res[0].Problems = append(res[0].Problems, "changed by the caller")
		}, 1},
		{"a caller's change does not reach the cache", func() {
			if res := get(spec); !res[0].Passed() || !res[0].Sandboxed {
				t.Errorf("cached result %+v", res[0])
			}
		}, 1},
		{"other runner bytes run", func() {
			writeExec(t, runner, "v2\n")
			get(spec)
		}, 2},
		{"another command runs", func() { get(with(func(s *runnerSpec) { s.Command += " --x" })) }, 3},
		{"another environment runs", func() { get(with(func(s *runnerSpec) { s.Env["A"] = "2" })) }, 4},
		{"another pytest runs", func() {
			old := py.Pytest
			py.Pytest = "8.0.0"
			get(spec)
			py.Pytest = old
		}, 5},
		{"older than the TTL runs again", func() { now = now.Add(scenarioTTL); get(spec) }, 6},
		{"a failing run is not kept", func() {
			writeExec(t, runner, "v3\n")
			failing = true
			get(spec)
			get(spec)
		}, 8},
	}
	for _, s := range steps {
		s.do()
		if runs != s.wantRuns {
			t.Fatalf("%s: %d runs, want %d", s.name, runs, s.wantRuns)
		}
	}
}
