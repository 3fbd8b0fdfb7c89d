package report

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// GateRun words the gate's verdict for its check run: a title and a
// summary that name the blocking checks, or why the gate does not apply,
// or why it cannot pass from untrusted results.
func GateRun(v checks.GateVerdict) RunOutput {
	out := gateWords(v)
	if v.Untrusted {
		out = RunOutput{Title: untrustedGateTitle, Summary: untrustedGateSummary + "\n\nThe report says: " + out.Title + "."}
	}
	if v.PolicyErr != nil {
		out.Summary += "\n\nThe gate applies because template-verify could not read the gated branches at the base: " + prose(v.PolicyErr.Error())
	}
	out.Summary = markdown.CutBytes(out.Summary, MaxOutputBytes, "")
	return out
}

// gateWords words the verdict as if the results were trusted.
func gateWords(v checks.GateVerdict) RunOutput {
	if v.NotGated != "" {
		return RunOutput{Title: "The gate does not apply to this branch", Summary: notGatedReason(v)}
	}
	branch := code(v.Branch)
	if v.Branch == "" {
		branch = "the base branch"
	}
	if len(v.Blocking) > 0 {
		lines := make([]string, len(v.Blocking))
		for i, b := range v.Blocking {
			lines[i] = fmt.Sprintf("- %s: %s", code(b.Check), Word(b.Conclusion))
		}
		return RunOutput{
			Title: markdown.CutChars(fmt.Sprintf("%s of %d block the merge", plural(len(v.Blocking), "check", "checks"), v.Checks), MaxTitleChars),
			Summary: fmt.Sprintf("The gate fails for pull requests into %s when a check fails, times out or does not run. These checks block the merge:\n\n%s",
				branch, strings.Join(lines, "\n")),
		}
	}
	if v.Checks == 0 {
		return RunOutput{Title: "No template changed", Summary: fmt.Sprintf("No template changed, so no check blocks the merge into %s.", branch)}
	}
	return RunOutput{
		Title:   "Every check passed or was skipped",
		Summary: fmt.Sprintf("Every check passed or was skipped, so no check blocks the merge into %s.", branch),
	}
}

// notGatedReason says why the gate does not apply.
func notGatedReason(v checks.GateVerdict) string {
	switch v.NotGated {
	case checks.NotGatedNoBranch:
		return "No base branch is known, so the gate does not apply."
	case checks.NotGatedNoBranches:
		return fmt.Sprintf("The configuration names no gated branch, so the gate does not apply to %s.", code(v.Branch))
	}
	globs := make([]string, len(v.Branches))
	for i, b := range v.Branches {
		globs[i] = code(b)
	}
	return fmt.Sprintf("The base branch %s matches none of the gated branches (%s), so the gate does not apply.", code(v.Branch), strings.Join(globs, ", "))
}
