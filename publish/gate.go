package publish

import (
	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

// GateCheck is the check name of the gate.
//
// Deprecated: forwarding until callers move; use checks.GateCheck.
const GateCheck = checks.GateCheck

// Gate says which pull requests the gate applies to.
//
// Deprecated: forwarding until callers move; use checks.Gate.
type Gate = checks.Gate

// Untrusted says why results cannot pass the gate.
//
// Deprecated: forwarding until callers move; use checks.Untrusted.
type Untrusted = checks.Untrusted

// GateOutcome is the conclusion and output of the gate check run.
//
// Deprecated: forwarding until callers move; use checks.GateVerdict and
// report.GateRun.
type GateOutcome struct {
	Conclusion string // success, failure, skipped, or action_required
	Title      string
	Summary    string
}

// GateOf decides the gate and words it.
//
// Deprecated: forwarding until callers move; use checks.GateOf and
// report.GateRun.
func GateOf(results []checks.Result, g Gate) GateOutcome {
	v := checks.GateOf(results, g)
	out := report.GateRun(v)
	return GateOutcome{Conclusion: string(v.Conclusion), Title: out.Title, Summary: out.Summary}
}
