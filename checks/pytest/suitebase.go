package pytest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/safefile"
)

// filesPresent checks the suite's files in the head's checkout before
// pytest runs, and judges the missing ones at the base:
//
//   - a file at the base and not at head: the PR removes it, and the suite
//     fails;
//   - files at neither: the suite is not run when none is left (pytest
//     would stop with exit code 4, a usage error, on every PR), and runs
//     without them otherwise, with a notice.
//
// It returns false when the suite must not run.
func (sr *suiteRun) filesPresent(ctx context.Context, head string) bool {
	missingHead := missingFiles(head, sr.suite.Files)
	if len(missingHead) == 0 {
		return true
	}
	base, err := sr.trees.Base(ctx)
	if err != nil {
		sr.fail(suiteFailed, "The base could not be checked out.", checks.Finding{Level: checks.LevelFailure, Title: "Checkout failed",
			Message: fmt.Sprintf("The head has no %s, and the base could not be checked out to compare: %v.", strings.Join(missingHead, ", "), err)})
		return false
	}
	atBase := missingFiles(base, missingHead)
	var removed, neither []string
	for _, f := range missingHead {
		if slices.Contains(atBase, f) {
			neither = append(neither, f)
		} else {
			removed = append(removed, f)
		}
	}
	if len(removed) > 0 {
		sr.fail(suiteFailed, fmt.Sprintf("The PR removes %s of the suite.", strings.Join(removed, ", ")), checks.Finding{
			Path: removed[0], Level: checks.LevelFailure, Title: "pytest suite " + sr.suite.Name + ": files removed",
			Message: fmt.Sprintf("The suite runs %s. %s at the base and not at head, so this PR removes tests that the suite runs. Restore them, or change the suite's files in the config.",
				strings.Join(sr.suite.Files, " "), isAre(removed)),
		})
		return false
	}
	if len(neither) == len(sr.suite.Files) {
		sr.fail(suiteNotRun, fmt.Sprintf("its files (%s) are neither at the base nor at head.", strings.Join(neither, ", ")), checks.Finding{})
		return false
	}
	var kept []string
	for _, f := range sr.suite.Files {
		if !slices.Contains(neither, f) {
			kept = append(kept, f)
		}
	}
	sr.res.Findings = append(sr.res.Findings, checks.Finding{
		Level: checks.LevelNotice, Title: "pytest suite " + sr.suite.Name + ": files not found",
		Message: fmt.Sprintf("%s neither at the base nor at head, so the suite runs %s only.", isAre(neither), strings.Join(kept, " ")),
	})
	sr.suite.Files = kept
	sr.label = "pytest " + strings.Join(kept, " ")
	return true
}

// isAre is "a is" or "a, b are".
func isAre(files []string) string {
	if len(files) == 1 {
		return files[0] + " is"
	}
	return strings.Join(files, ", ") + " are"
}

// missingFiles returns the targets (files, folders or node ids) whose path
// is not in dir. A target that leaves dir counts as present: pytest, in
// its sandbox, decides. No symbolic link in dir is followed: the tree is
// the PR's.
func missingFiles(dir string, targets []string) []string {
	var out []string
	for _, t := range targets {
		rel, err := safefile.Inside(fileOf(t))
		if err != nil {
			continue
		}
		if !existsNoFollow(dir, rel) {
			out = append(out, t)
		}
	}
	return out
}

// existsNoFollow reports whether rel is in dir, looking at each component
// with Lstat: a symbolic link on the way counts as present.
func existsNoFollow(dir, rel string) bool {
	cur := dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if err != nil || info.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return true
}

// exitAtBase runs the suite at the merge base after pytest stopped at head
// with code (not 0, 1 or 5: interrupted, internal error, usage error, a
// signal, or a code a plugin chose). The same code at the base means the
// suite fails before this change: a warning, or a failure when the base's
// config sets pre_existing: fail.
func (sr *suiteRun) exitAtBase(ctx context.Context, code int) {
	f := &sr.res.Findings[len(sr.res.Findings)-1]
	unknown := func(why string) {
		f.Message += " " + why + " So the check cannot show that it failed before the change."
	}
	base, err := sr.trees.Base(ctx)
	if err != nil {
		unknown("The base could not be checked out: " + err.Error() + ".")
		return
	}
	if missing := missingFiles(base, sr.suite.Files); len(missing) > 0 {
		unknown(fmt.Sprintf("The base has no %s.", strings.Join(missing, ", ")))
		return
	}
	// A HOME of its own, as in atBase: the head's run could have written
	// into its HOME to make the base fail the same way.
	home, err := os.MkdirTemp(sr.r.scratch, "home-base-")
	if err != nil {
		unknown("A temporary folder could not be made: " + err.Error() + ".")
		return
	}
	br, err := sr.r.run(ctx, base, home, sr.env, sr.suite.Files, sr.timeout)
	if err != nil {
		unknown("pytest could not start at the base: " + err.Error() + ".")
		return
	}
	short := shortSHA(sr.trees.base)
	value := fmt.Sprintf("exit code %d", br.Out.ExitCode)
	switch {
	case br.Out.TimedOut:
		value = "stopped at the time limit of " + sr.timeout.String()
	case br.Report != nil && (br.Out.ExitCode == 0 || br.Out.ExitCode == 1):
		value = br.Report.Counts().String()
	}
	sr.res.Figures = append(sr.res.Figures, checks.Figure{
		Label:   fmt.Sprintf("%s at base %s", sr.label, short),
		Value:   value,
		Command: fmt.Sprintf("git worktree add --detach ../base-%s %s && cd ../base-%s && %s", short, short, short, reproduce(sr.env, sr.r.py.Display, sr.suite.Files, false)),
	})
	switch {
	case br.Out.TimedOut || br.Out.Err != nil:
		unknown("The run at the base did not finish.")
	case br.Out.ExitCode != code:
		f.Message += fmt.Sprintf(" At the base, the same command exits with code %d, so this PR causes the failure.", br.Out.ExitCode)
	default:
		f.Title = fmt.Sprintf("pytest stops with exit code %d before this change", code)
		f.Message += fmt.Sprintf(" At the base, the same command stops with exit code %d too, so this PR does not cause it.", code)
		if sr.strict {
			f.Message += " The base config sets pre_existing: fail, so it fails the check."
			return
		}
		f.Level = checks.LevelWarning
		sr.res.Status = suiteBefore
		sr.res.Reason = fmt.Sprintf("pytest stops with exit code %d (%s) at the base and at head.", code, exitMeaning(code))
	}
}
