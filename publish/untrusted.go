package publish

// Untrusted says why results cannot pass the gate and how to get a verdict
// that can. Results that pull-request code made (the report a fork's own
// pull_request job uploaded: that job runs the fork's workflow file) are
// shown, but are data the pull request chose.
type Untrusted struct {
	Title   string // the gate's title, such as "A fork's own report cannot pass the gate"
	Summary string // markdown: who made the results, how a maintainer gets a trusted verdict
}

// distrust turns a passing gate into action_required when the results are
// untrusted. GitHub does not count action_required as passed (it counts
// neutral and skipped as passed, so those are never used here). A failing
// gate stays failing: untrusted results can only make the gate worse. A
// gate that does not apply to the branch stays skipped: the gated
// branches come from the base, not from the results.
func (g Gate) distrust(out GateOutcome) GateOutcome {
	if g.Untrusted == nil || out.Conclusion != "success" {
		return out
	}
	return GateOutcome{
		Conclusion: "action_required",
		Title:      CutChars(g.Untrusted.Title, MaxTitleChars),
		Summary:    g.Untrusted.Summary + "\n\nThe report says: " + out.Title + ".",
	}
}
