package restore

import (
	"context"
	"encoding/json"
	"fmt"
)

// learnFallback decides, for a step that no config file names, what it
// does without the baseline sha file: one probe run without the file
// (and with a protected file edited) shows whether its report says it ran
// (it falls back to the rendered base commit) or not (it refuses). A step
// that a config names keeps restore.fallback. It returns a note when the
// probe decides.
func (r *runner) learnFallback(ctx context.Context, explicit bool) string {
	if explicit || r.step.Report == "" || r.step.Command != "" {
		return ""
	}
	sc, ok := probeScenario(r.generated)
	if !ok {
		return ""
	}
	sc.Name, sc.NoBaseline = "probe-no-baseline", true
	out := r.run(ctx, sc)
	var obj map[string]json.RawMessage
	if json.Unmarshal(out.Report, &obj) != nil {
		return ""
	}
	var ran bool
	if raw, ok := obj[r.reportKeys().Ran]; !ok || json.Unmarshal(raw, &ran) != nil {
		return ""
	}
	r.step.FallsBack = ran
	if ran {
		return "Without the baseline file the step restores against the rendered base commit (a probe run shows it), so the model expects that."
	}
	return fmt.Sprintf("Without the baseline file the step refuses (a probe run shows %s: false), so the model expects it to change nothing.", r.reportKeys().Ran)
}
