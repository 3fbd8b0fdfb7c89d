package restore

import (
	"context"
	"errors"
	"fmt"

	"github.com/formula-code/template-verify/checks"
)

// cutShort is the result of a check that its time limit, or a cancel,
// stopped in the middle of its scenario runs. The runs it killed are not
// "do not match the model": the check timed out (or was cancelled) after
// so many runs. A run that failed before the end is still a finding.
func cutShort(ctx context.Context, res checks.Result, ri resultInput) checks.Result {
	all := append(append([]Outcome{}, ri.catalogue...), ri.random...)
	done, failed := 0, 0
	for _, o := range all {
		if o.Verdict == Broken {
			continue
		}
		done++
		if o.Verdict != Pass {
			failed++
			res.Findings = append(res.Findings, scenarioFinding(ri.step, o))
		}
	}
	ran := fmt.Sprintf("after %d of %d scenario runs", done, len(all))
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Conclusion = checks.TimedOut
		res.Title = "The restore check ran past its time limit " + ran
	} else {
		res.Conclusion = checks.Cancelled
		res.Title = "The verification was cancelled " + ran
	}
	res.Summary = res.Title + fmt.Sprintf(". %d of them failed before the end; the runs the end stopped are not counted as failures.", failed)
	return res
}
