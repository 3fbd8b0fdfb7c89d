package pytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/junit"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/words"
)

// defaultSuiteTimeout applies when neither the suite nor the pytest block
// gives a time limit.
const defaultSuiteTimeout = 10 * time.Minute

// suiteStatus is how one suite ended.
type suiteStatus int

const (
	suitePassed suiteStatus = iota
	suiteFailed
	suiteNotRun
	suiteTimedOut
	// suiteBefore: pytest stops the same way at the base, so the failure
	// is not the change's.
	suiteBefore
)

// suiteResult is what one suite adds to the check result.
type suiteResult struct {
	Name      string
	Status    suiteStatus
	Reason    string // one sentence, for suites that did not pass
	Figures   []checks.Figure
	Findings  []checks.Finding
	Sandboxed bool
	// Regressions counts failure findings from tests; Before counts tests
	// that fail at the base too.
	Regressions, Before, Flaky int
}

// suiteRun holds what runSuite needs.
type suiteRun struct {
	r       *runner
	trees   *checkouts
	suite   config.Suite
	timeout time.Duration
	env     []string
	label   string
	res     suiteResult
	// strict: a failure before this change still fails (pre_existing: fail).
	strict bool
	// badExit is the exit code (not 0, 1 or 5) that stopped the head's run.
	badExit *int
}

// runSuite runs one suite at head, runs its failures again, and runs the
// tests that fail twice at the base.
func runSuite(ctx context.Context, r *runner, trees *checkouts, s config.Suite, defTimeout time.Duration, strict bool) suiteResult {
	sr := &suiteRun{r: r, trees: trees, suite: s, env: envList(s.Env), label: "pytest " + strings.Join(s.Files, " "), strict: strict}
	sr.res.Name = s.Name
	sr.timeout = s.Timeout.Duration
	if sr.timeout == 0 {
		sr.timeout = defTimeout
	}
	if sr.timeout == 0 {
		sr.timeout = defaultSuiteTimeout
	}
	sr.run(ctx)
	return sr.res
}

func (sr *suiteRun) fail(status suiteStatus, reason string, f checks.Finding) {
	sr.res.Status = status
	sr.res.Reason = reason
	if f.Message != "" {
		sr.res.Findings = append(sr.res.Findings, f)
	}
}

func (sr *suiteRun) run(ctx context.Context) {
	head, err := sr.trees.Head(ctx)
	if err != nil {
		sr.fail(suiteFailed, "The head could not be checked out.", checks.Finding{Level: checks.LevelFailure, Title: "Checkout failed", Message: err.Error()})
		return
	}
	if !sr.filesPresent(ctx, head) {
		return
	}
	home, err := os.MkdirTemp(sr.r.scratch, "home-")
	if err != nil {
		sr.fail(suiteFailed, "A temporary folder could not be made.", checks.Finding{Level: checks.LevelFailure, Title: "Internal error", Message: err.Error()})
		return
	}
	first, err := sr.r.run(ctx, head, home, sr.env, sr.suite.Files, sr.timeout)
	if err != nil {
		sr.fail(suiteFailed, "pytest could not start.", checks.Finding{Level: checks.LevelFailure, Title: "pytest could not start", Message: err.Error()})
		return
	}
	sr.res.Sandboxed = first.Out.Sandboxed
	if !sr.usable(first, sr.label, sr.suite.Files, "") {
		if sr.badExit != nil {
			sr.exitAtBase(ctx, *sr.badExit)
		}
		return
	}
	bad := first.Bad()
	if len(bad) == 0 {
		return
	}
	// Second run of the failed tests only.
	second, err := sr.r.run(ctx, head, home, sr.env, bad, sr.timeout)
	if err != nil {
		sr.fail(suiteFailed, "pytest could not start.", checks.Finding{Level: checks.LevelFailure, Title: "pytest could not start", Message: err.Error()})
		return
	}
	secondOK := second.Out.Err == nil && second.Report != nil
	if secondOK {
		sr.res.Figures = append(sr.res.Figures, checks.Figure{
			Label:   fmt.Sprintf("%s, second run of %s", sr.label, plural(len(bad), "failed test", "failed tests")),
			Value:   second.Report.Counts().String(),
			Command: reproduce(sr.env, sr.r.py.Display, bad, hasCollectionError(first, bad)),
		})
	}
	var twice []string
	for _, id := range bad {
		if secondOK && !second.stillBad(id) {
			sr.res.Flaky++
			sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelNotice, "Flaky test",
				"This test fails once and passes on the second run. It is not a regression."))
			continue
		}
		twice = append(twice, id)
	}
	if len(twice) > 0 {
		sr.atBase(ctx, first, twice)
	}
	if sr.res.Status == suitePassed && sr.res.Regressions > 0 {
		sr.res.Status = suiteFailed
		sr.res.Reason = fmt.Sprintf("%s fail at head.", plural(sr.res.Regressions, "test", "tests"))
	}
}

// usable checks the exit code and JUnit file of a run and adds its figure.
// It returns false (and sets the status) when the run cannot be used.
func (sr *suiteRun) usable(p *pyRun, label string, targets []string, prefix string) bool {
	cmd := prefix + reproduce(sr.env, sr.r.py.Display, targets, p.Report != nil && hasCollectionError(p, nil))
	tail := sandboxTail(p)
	switch {
	case p.Out.TimedOut:
		sr.res.Figures = append(sr.res.Figures, checks.Figure{Label: label, Value: "stopped at the time limit of " + sr.timeout.String(), Command: cmd})
		sr.fail(suiteTimedOut, fmt.Sprintf("The suite ran past its time limit of %s.", sr.timeout), checks.Finding{
			Level:   checks.LevelFailure,
			Title:   "pytest suite " + sr.suite.Name + " timed out",
			Message: fmt.Sprintf("%s ran past its time limit of %s. The check stopped it and all its processes.", label, sr.timeout),
			Details: tail,
		})
		return false
	case p.Out.Err != nil:
		sr.fail(suiteFailed, "pytest did not finish.", checks.Finding{Level: checks.LevelFailure, Title: "pytest did not finish", Message: fmt.Sprintf("%s: %v", label, p.Out.Err), Details: tail})
		return false
	case p.Out.ExitCode == 5:
		sr.res.Figures = append(sr.res.Figures, checks.Figure{Label: label, Value: "no tests collected", Command: cmd})
		sr.fail(suiteNotRun, "pytest collected no tests (exit code 5).", checks.Finding{})
		return false
	case p.Out.ExitCode != 0 && p.Out.ExitCode != 1:
		code := p.Out.ExitCode
		sr.badExit = &code
		sr.res.Figures = append(sr.res.Figures, checks.Figure{Label: label, Value: fmt.Sprintf("exit code %d (%s)", code, exitMeaning(code)), Command: cmd})
		sr.fail(suiteFailed, fmt.Sprintf("pytest stopped with exit code %d.", p.Out.ExitCode), checks.Finding{
			Level:   checks.LevelFailure,
			Title:   fmt.Sprintf("pytest stopped with exit code %d", p.Out.ExitCode),
			Message: fmt.Sprintf("%s stopped with exit code %d (%s).", label, p.Out.ExitCode, exitMeaning(p.Out.ExitCode)),
			Details: tail,
		})
		return false
	case p.Report == nil:
		sr.fail(suiteFailed, "pytest wrote no JUnit file.", checks.Finding{
			Level: checks.LevelFailure, Title: "No JUnit file",
			Message: fmt.Sprintf("%s exited with code %d, but the JUnit file is not usable: %v.", label, p.Out.ExitCode, p.JUnitErr),
			Details: tail,
		})
		return false
	}
	counts := p.Report.Counts()
	sr.res.Figures = append(sr.res.Figures, checks.Figure{Label: label, Value: counts.String(), Command: cmd})
	if counts.Total() == 0 && p.Out.ExitCode == 0 {
		// Nothing ran, though the exit code says all passed (a conftest
		// can turn pytest's exit code 5 into 0): not run, as exit code 5
		// is. With exit code 1 the disagreement below is a failure.
		sr.fail(suiteNotRun, "pytest exited with code 0, but its JUnit file has no test cases.", checks.Finding{})
		return false
	}
	bad := len(p.Bad())
	if (p.Out.ExitCode == 0) != (bad == 0) {
		sr.fail(suiteFailed, "The exit code and the JUnit file of pytest do not agree.", checks.Finding{
			Level: checks.LevelFailure, Title: "pytest results do not agree",
			Message: fmt.Sprintf("%s exited with code %d, but the JUnit file has %s.", label, p.Out.ExitCode, plural(bad, "failed test", "failed tests")),
			Details: tail,
		})
		return false
	}
	return true
}

// atBase runs the files of the tests that failed twice at the merge base
// and sorts each test into regression, failing before, or new failure.
func (sr *suiteRun) atBase(ctx context.Context, first *pyRun, twice []string) {
	unknown := func(why string) {
		for _, id := range twice {
			sr.res.Regressions++
			sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelFailure, "Not checked at base",
				"This test fails twice at head. "+why+" So the check cannot show that it failed before the change."))
		}
	}
	base, err := sr.trees.Base(ctx)
	if err != nil {
		unknown("The base could not be checked out: " + err.Error() + ".")
		return
	}
	var files []string
	seen := map[string]bool{}
	for _, id := range twice {
		f := fileOf(id)
		if seen[f] {
			continue
		}
		seen[f] = true
		// f comes from the JUnit file of the head's run: only a path
		// inside the checkout is looked up or run at the base.
		rel, err := safefile.Inside(f)
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(base, rel)); err == nil {
			files = append(files, f)
		}
	}
	var br *pyRun
	if len(files) > 0 {
		// A HOME of its own: the head's tests could have written into
		// theirs (a usercustomize module, a config) to fail the base run
		// too and have a regression excused as failing before.
		home, err := os.MkdirTemp(sr.r.scratch, "home-base-")
		if err != nil {
			unknown("A temporary folder could not be made: " + err.Error() + ".")
			return
		}
		br, err = sr.r.run(ctx, base, home, sr.env, files, sr.timeout)
		if err != nil || br.Out.Err != nil || br.Report == nil {
			why := "The run at the base did not finish."
			if br != nil && br.Out.Err != nil {
				why = fmt.Sprintf("The run at the base did not finish: %v.", br.Out.Err)
			}
			unknown(why)
			return
		}
		short := shortSHA(sr.trees.base)
		sr.res.Figures = append(sr.res.Figures, checks.Figure{
			Label:   fmt.Sprintf("pytest %s at base %s", strings.Join(files, " "), short),
			Value:   br.Report.Counts().String(),
			Command: fmt.Sprintf("git worktree add --detach ../base-%s %s && cd ../base-%s && %s", short, short, short, reproduce(sr.env, sr.r.py.Display, files, hasCollectionError(br, nil))),
		})
	}
	for _, id := range twice {
		sr.classify(first, br, id)
	}
}

// classify sorts one test that failed twice at head by its base result.
func (sr *suiteRun) classify(first, br *pyRun, id string) {
	fileAtBase := br != nil && sr.fileRanAtBase(br, fileOf(id))
	if !strings.Contains(id, "::") {
		// A test module that does not import at head.
		switch {
		case br != nil && anyPassed(br, id):
			sr.res.Regressions++
			sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelFailure, "Regression: test file does not import",
				"This test file does not import at head. Its tests pass at the base."))
		case fileAtBase:
			sr.res.Before++
			sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelWarning, "Failing before the change",
				"This test file does not import at head, and none of its tests pass at the base."))
		default:
			sr.res.Regressions++
			sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelFailure, "New test file does not import",
				"This test file does not import at head, and it is not at the base."))
		}
		return
	}
	c, ok := br.caseOf(id)
	switch {
	case ok && c.Outcome == junit.Passed:
		sr.res.Regressions++
		sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelFailure, "Regression",
			"This test fails twice at head and passes at the base."))
	case ok && c.Outcome.Bad():
		sr.res.Before++
		sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelWarning, "Failing before the change",
			"This test fails twice at head and also fails at the base. It is not a regression."))
	case ok:
		sr.res.Regressions++
		sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelFailure, "Test fails at head",
			"This test fails twice at head and is skipped at the base."))
	default:
		sr.res.Regressions++
		sr.res.Findings = append(sr.res.Findings, finding(first, id, checks.LevelFailure, "New test fails",
			"This test fails twice at head and is not at the base."))
	}
}

func (p *pyRun) caseOf(id string) (c junit.Case, ok bool) {
	if p == nil {
		return c, false
	}
	c, ok = p.Cases[id]
	return c, ok
}

// fileRanAtBase reports whether the base run has any case of file.
func (sr *suiteRun) fileRanAtBase(br *pyRun, file string) bool {
	for k := range br.Cases {
		if within(k, file) {
			return true
		}
	}
	return false
}

func anyPassed(p *pyRun, file string) bool {
	for k, c := range p.Cases {
		if k != file && within(k, file) && c.Outcome == junit.Passed {
			return true
		}
	}
	return false
}

// hasCollectionError reports whether the run has a module that did not
// import, among ids (all ids when nil).
func hasCollectionError(p *pyRun, ids []string) bool {
	if p == nil {
		return false
	}
	if ids == nil {
		ids = p.Order
	}
	for _, id := range ids {
		if c, ok := p.Cases[id]; ok && c.CollectionError() {
			return true
		}
	}
	return false
}

func exitMeaning(code int) string {
	switch code {
	case 2:
		return "interrupted"
	case 3:
		return "internal error"
	case 4:
		return "usage error"
	case -1:
		return "killed by a signal"
	}
	return "not a pytest exit code"
}

// shortSHA is the shared short commit sha.
var shortSHA = words.Short

// plural is the shared count with its noun ("1 test", "2 tests").
var plural = words.Plural
