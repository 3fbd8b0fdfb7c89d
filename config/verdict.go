package config

import "maps"

// Values of pre_existing.
const (
	PreExistingWarn = "warn"
	PreExistingFail = "fail"
)

// Values of restore.refusal_exit.
const (
	RefusalExitAny     = "any"
	RefusalExitZero    = "zero"
	RefusalExitNonzero = "nonzero"
)

// Values of restore.fallback.
const (
	FallbackRefuse     = "refuse"
	FallbackBaseCommit = "base_commit"
)

// BaseCommitVar is the template variable that holds the task's base commit.
// The restore check renders it with the fixture's real base sha, so that a
// step that falls back to it restores against a commit the fixture has.
const BaseCommitVar = "base_commit"

// Defaults of the runner contract: datasmith's pytest_runner.py (commit
// 185e0de) takes --base, no --out, writes
// $T_BENCH_TASK_LOGS_PATH/test_results.json, lists the regressed tests in
// regression.regressed, and counts the tests it ran in
// results.summary.total. It never writes tests_ran.
const (
	DefaultRunnerCommand   = "{python} {runner} --base {base}"
	DefaultRunnerResult    = "{logs}/test_results.json"
	DefaultRunnerRegressed = "regression.regressed"
	DefaultRunnerTestsRan  = "results.summary.total"
	// LogsPlaceholder is the scenario's log folder in runner settings.
	LogsPlaceholder = "{logs}"
)

// PreExistingFails reports whether a failure that also happens at the base
// fails the check. It reads the base's configuration when there is one:
// the head cannot relax what decides the gate.
func PreExistingFails(base, head *Config) bool {
	c := head
	if base != nil {
		c = base
	}
	return c != nil && c.PreExisting == PreExistingFail
}

// RefusalExitRule is restore.refusal_exit with its default.
func (r *Restore) RefusalExitRule() string {
	if r.RefusalExit == "" {
		return RefusalExitAny
	}
	return r.RefusalExit
}

// FallsBackToBaseCommit reports whether the step restores against the
// rendered base_commit when the baseline sha file is missing.
func (r *Restore) FallsBackToBaseCommit() bool { return r.Fallback == FallbackBaseCommit }

// RunCommand is pytest.runner.command with its default.
func (r *Runner) RunCommand() string {
	if r.Command == "" {
		return DefaultRunnerCommand
	}
	return r.Command
}

// ResultFile is pytest.runner.result with its default.
func (r *Runner) ResultFile() string {
	if r.Result == "" {
		return DefaultRunnerResult
	}
	return r.Result
}

// RunEnv is pytest.runner.env with its default.
func (r *Runner) RunEnv() map[string]string {
	if r.Env == nil {
		return map[string]string{"T_BENCH_TASK_LOGS_PATH": LogsPlaceholder}
	}
	return maps.Clone(r.Env)
}

// RegressedKey is pytest.runner.regressed with its default.
func (r *Runner) RegressedKey() string {
	if r.Regressed == "" {
		return DefaultRunnerRegressed
	}
	return r.Regressed
}

// TestsRanKey is pytest.runner.tests_ran with its default.
func (r *Runner) TestsRanKey() string {
	if r.TestsRan == "" {
		return DefaultRunnerTestsRan
	}
	return r.TestsRan
}
