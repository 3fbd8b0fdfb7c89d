package checks

import (
	"time"
)

// Conclusion is the outcome of one check. The values match GitHub's
// check-run conclusions, except NotRun, which publishes as "neutral".
type Conclusion string

const (
	Success Conclusion = "success"
	Failure Conclusion = "failure"
	// NotRun: the check should have run but could not (no python, a
	// missing section under default config, a check this PR turns off).
	// It is never a pass, and it makes the whole run "not run".
	NotRun Conclusion = "not_run"
	// Skipped: the check has nothing to verify in this change (no suite is
	// triggered, or the base and head config both turn it off). It is shown
	// as skipped, never as passed, and does not change the overall result.
	Skipped   Conclusion = "skipped"
	TimedOut  Conclusion = "timed_out"
	Cancelled Conclusion = "cancelled"
)

// Passed reports whether the conclusion counts as a pass. Only Success does.
func (c Conclusion) Passed() bool { return c == Success }

// Failed reports whether the conclusion makes the whole run fail.
func (c Conclusion) Failed() bool { return c == Failure || c == TimedOut }

// CheckRun is the conclusion of the check's run on GitHub. A check that
// did not run is "neutral", never "success"; an unknown value is "neutral"
// too.
func (c Conclusion) CheckRun() string {
	switch c {
	case Success, Failure, Skipped, TimedOut, Cancelled:
		return string(c)
	}
	return "neutral"
}

// Level is the severity of a finding; the values are GitHub's annotation levels.
type Level string

const (
	LevelNotice  Level = "notice"
	LevelWarning Level = "warning"
	LevelFailure Level = "failure"
)

// Finding is one thing a check found, pointing at a file and line of the
// verified repository where it can.
type Finding struct {
	Path    string `json:"path,omitempty"`     // repository-relative path
	Line    int    `json:"line,omitempty"`     // 1-based; 0 when unknown
	EndLine int    `json:"end_line,omitempty"` // 0 when the same as Line
	Level   Level  `json:"level"`
	Title   string `json:"title,omitempty"`
	Message string `json:"message"`
	// Details holds raw text (a diff, two outputs side by side) shown in a
	// code block under the finding.
	Details string `json:"details,omitempty"`
	// Advisory marks a warning that comes from a default setting which
	// may not apply to this repository (a default sync group whose copy
	// is missing, names the default taint.protect leaves out). In a check
	// that passes, the reports list it with the notes, not as a warning.
	Advisory bool `json:"advisory,omitempty"`
}

// Figure is one measured number with the command that reproduces it, for
// example "pytest tests/test_x.py" -> "22 passed, 1 skipped".
type Figure struct {
	Label   string `json:"label"`
	Value   string `json:"value"`
	Command string `json:"command,omitempty"`
}

// Table is a small table shown in the Verification section, such as one row
// per restore scenario.
type Table struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

// Change describes the change of one template between base and head, as
// data: package report words it (the bold line, Effect and Before) for the
// Changes section of the comment.
type Change struct {
	Path   string `json:"path"`   // repository-relative template path
	Status string `json:"status"` // added, modified, deleted, renamed, included
	// OldPath is the base's path of a renamed template.
	OldPath string `json:"old_path,omitempty"`
	// Via lists the included files whose change changes the template.
	Via []string `json:"via,omitempty"`
	// Sets counts the variable sets the template renders with.
	Sets int `json:"sets,omitempty"`
	// SameSets counts the sets that render the same output at base and
	// head; HeadFails the sets whose render fails at head.
	SameSets  int `json:"same_sets,omitempty"`
	HeadFails int `json:"head_fails,omitempty"`
	// AddedPerSet and RemovedPerSet count the lines that each set whose
	// output changes adds and removes, in set order.
	AddedPerSet   []int `json:"added_per_set,omitempty"`
	RemovedPerSet []int `json:"removed_per_set,omitempty"`
	// FirstAdded and FirstRemoved are the first rendered lines that are
	// not blank among the lines the first changed set adds and removes.
	FirstAdded   string `json:"first_added,omitempty"`
	FirstRemoved string `json:"first_removed,omitempty"`
	// Added and Removed count the lines of Diff: the rendered diff of the
	// first variable set whose output changed, not a sum over the sets.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Diff is a unified diff of the rendered output of one variable set.
	Diff string `json:"diff,omitempty"`
}

// Result is what one check returns.
type Result struct {
	Check      string        `json:"check"` // short name: render, restore, pytest
	Conclusion Conclusion    `json:"conclusion"`
	Title      string        `json:"title"` // one line for the check-run title
	Summary    string        `json:"summary"`
	Findings   []Finding     `json:"findings,omitempty"`
	Figures    []Figure      `json:"figures,omitempty"`
	Tables     []Table       `json:"tables,omitempty"`
	Changes    []Change      `json:"changes,omitempty"`
	Notes      []string      `json:"notes,omitempty"` // what did not run and why
	Details    string        `json:"details,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
}

// Failures counts the findings at failure level.
func (r *Result) Failures() int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == LevelFailure {
			n++
		}
	}
	return n
}

// Overall folds the conclusions of several checks into one: any failure or
// time-out fails; otherwise any check that did not run (or was cancelled)
// makes the whole NotRun. Skipped checks do not count, but a list with no
// Success at all is NotRun, because nothing was verified.
func Overall(results []Result) Conclusion {
	out, passed := Success, false
	for _, r := range results {
		switch r.Conclusion {
		case Success:
			passed = true
		case Skipped:
		case Failure, TimedOut:
			return Failure
		default:
			out = NotRun
		}
	}
	if !passed {
		return NotRun
	}
	return out
}
