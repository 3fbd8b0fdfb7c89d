package config

import (
	"fmt"
	"regexp"
	"strconv"
)

// Taint configures the taint check: what a file the agent can write can
// change in a script that sources it, such as a skip flag that turns the
// tests off. Empty fields take the
// datasmith defaults below, so a file can set one key and keep the rest;
// taint: null turns the check off.
type Taint struct {
	// AgentWritable lists globs of absolute paths the agent can write. A
	// source of a path one matches (or of a relative path, or of a path the
	// check cannot work out) taints the names the script uses after it.
	// Unset, every path: the agent may have written any file the grader
	// sources, unless the script wrote it itself before the source. A list
	// narrows that to its globs.
	AgentWritable []string `yaml:"agent_writable"`
	// Protect lists the names (globs, such as FC_SKIP_*) that must not be
	// read after such a source unless an assignment after it covers the
	// read on every path, or the script made them readonly before it.
	// The check protects more names without this list: those the script
	// reads with a default (${X:-…}) and those whose values reach git, a
	// --base option or a redirection's file (checks/taint Reason*).
	Protect []string `yaml:"protect"`
	// Steps are regular expressions of whole lines that start the steps of
	// the script; the tamper run executes the script up to the first line
	// that matches one.
	Steps []string `yaml:"steps"`
	// ProfileDir is the folder of sourced files that the tamper run fills
	// with hostile files.
	ProfileDir string `yaml:"profile_dir"`
	// Tamper runs the script's head with hostile files (default true).
	Tamper *bool `yaml:"tamper"`
}

// Datasmith defaults of the taint check.
var (
	// DefaultAgentWritable is every absolute path: no file is special.
	DefaultAgentWritable = []string{"/**"}
	// DefaultProtect: the skip flags of the datasmith templates and the
	// values that decide the reward (timing inputs, time limits, parser
	// thresholds).
	DefaultProtect = []string{
		"FC_SKIP_*",
		"FC_PYTEST_TIMEOUT",
		"FC_REBUILD_CMD",
		"BENCHMARK_DATA",
		"BENCHMARK_DIR",
		"LSV_OUTPUT_DIR",
		"DATASMITH_VERIFY_*",
		"FORMULACODE_BASELINE_FROM_CACHE",
		"FORMULACODE_EXPECTED_N",
		"T_BENCH_TASK_LOGS_PATH",
	}
	DefaultTaintSteps = []string{`^# ── Capture patch`, `^# ── Restore`, `^# ── Timing`, `^# ── Pytest`}
)

// DefaultProfileDir is the folder datasmith's test.sh sources.
const DefaultProfileDir = "/etc/profile.d"

// WritableGlobs is agent_writable with its default.
func (t *Taint) WritableGlobs() []string {
	if len(t.AgentWritable) == 0 {
		return DefaultAgentWritable
	}
	return t.AgentWritable
}

// ProtectedNames is protect with its default.
func (t *Taint) ProtectedNames() []string {
	if len(t.Protect) == 0 {
		return DefaultProtect
	}
	return t.Protect
}

// StepPatterns is steps with its default.
func (t *Taint) StepPatterns() []string {
	if len(t.Steps) == 0 {
		return DefaultTaintSteps
	}
	return t.Steps
}

// Profile is profile_dir with its default.
func (t *Taint) Profile() string {
	if t.ProfileDir == "" {
		return DefaultProfileDir
	}
	return t.ProfileDir
}

// TamperRun reports whether the tamper run is on.
func (t *Taint) TamperRun() bool { return t.Tamper == nil || *t.Tamper }

func (c *Config) validateTaint(fail func(msg string, keyPath ...string) error) error {
	t := c.Taint
	if t == nil {
		return nil
	}
	for j, g := range t.AgentWritable {
		if !validGlob(g) {
			return fail(fmt.Sprintf("taint.agent_writable %q is not a valid glob", g), "taint", "agent_writable", strconv.Itoa(j))
		}
	}
	for j, g := range t.Protect {
		if !validGlob(g) || g == "" {
			return fail(fmt.Sprintf("taint.protect %q is not a valid name glob", g), "taint", "protect", strconv.Itoa(j))
		}
	}
	for j, s := range t.Steps {
		if _, err := regexp.Compile(s); err != nil {
			return fail(fmt.Sprintf("taint.steps %q is not a valid regular expression: %v", s, err), "taint", "steps", strconv.Itoa(j))
		}
	}
	return nil
}
