package restore

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/words"
)

// ReportKeys names the keys of the step's JSON report.
type ReportKeys = config.ReportKeys

// defaultReportKeys are the keys of datasmith's protected_restore.json.
var defaultReportKeys = ReportKeys{Ran: "ran", Base: "base", Discarded: "discarded", Remaining: "remaining", Error: "error"}

// jsonKey finds the keys a step writes into JSON text: "key": or \"key\":.
var jsonKey = regexp.MustCompile(`\\?"([A-Za-z_][A-Za-z0-9_]*)\\?"\s*:`)

// Name hints for each role, used where a probe leaves a choice.
var (
	ranHint       = regexp.MustCompile(`(?i)^(ran|run|did_run|restored|ok|done|applied|executed)$`)
	remainingHint = regexp.MustCompile(`(?i)remain|left|still|unrestored|after`)
	errorHint     = regexp.MustCompile(`(?i)error|reason|message|why`)
)

// learnKeys decides the report keys of the runner's step. Keys that
// restore.report_keys gives are kept. The others come from one probe run
// of the step, whose expected result the model knows: the key whose
// value is the base sha, the true flag, the list that holds the edited
// protected paths, and the other list. What the probe leaves open comes
// from the key names the step writes, else datasmith's names. It returns
// the keys and a note when they are not datasmith's.
func (r *runner) learnKeys(ctx context.Context, given ReportKeys) (ReportKeys, string) {
	keys := defaultReportKeys
	if r.step.Report == "" {
		return keys, ""
	}
	static := jsonKey.FindAllStringSubmatch(r.step.Script, -1)
	var written []string
	for _, m := range static {
		if !slices.Contains(written, m[1]) {
			written = append(written, m[1])
		}
	}
	// A step that writes datasmith's keys needs no probe run.
	probed := ReportKeys{}
	datasmith := true
	for _, k := range []string{defaultReportKeys.Ran, defaultReportKeys.Base, defaultReportKeys.Discarded, defaultReportKeys.Remaining} {
		datasmith = datasmith && slices.Contains(written, k)
	}
	if sc, ok := probeScenario(r.generated); ok && !datasmith {
		out := r.run(ctx, sc)
		probed = keysFromReport(out.Report, r.baseSHA, out.Expect.Discarded)
	}
	pick := func(given, probed, def string, hint *regexp.Regexp) string {
		switch {
		case given != "":
			return given
		case probed != "":
			return probed
		case slices.Contains(written, def) || len(written) == 0:
			return def
		}
		if hint != nil {
			for _, k := range written {
				if hint.MatchString(k) {
					return k
				}
			}
		}
		return def
	}
	keys = ReportKeys{
		Ran:       pick(given.Ran, probed.Ran, defaultReportKeys.Ran, ranHint),
		Base:      pick(given.Base, probed.Base, defaultReportKeys.Base, nil),
		Discarded: pick(given.Discarded, probed.Discarded, defaultReportKeys.Discarded, nil),
		Remaining: pick(given.Remaining, probed.Remaining, defaultReportKeys.Remaining, remainingHint),
		Error:     pick(given.Error, "", defaultReportKeys.Error, errorHint),
	}
	if keys == defaultReportKeys {
		return keys, ""
	}
	return keys, fmt.Sprintf("The step's report uses its own keys: %s for the run flag, %s for the base sha, %s for the discarded paths, %s for the remaining paths and %s for the error (from restore.report_keys where given, else learned from a probe run and the keys the step writes).",
		code(keys.Ran), code(keys.Base), code(keys.Discarded), code(keys.Remaining), code(keys.Error))
}

// code is the shared inline code span.
var code = words.Code

// probeScenario edits one protected base file and adds one protected
// file, beside the fix: the model expects both discarded.
func probeScenario(gp []patternPaths) (Scenario, bool) {
	for _, pp := range gp {
		if pp.New != "" {
			return Scenario{Name: "probe-report-keys", Edits: []Edit{
				write(pp.Plain, "changed by the probe\n"),
				write(pp.New, "added by the probe\n"),
				write("src/pkg/core.py", fixCore),
			}}, true
		}
	}
	return Scenario{}, false
}

// keysFromReport finds the keys of a report the model knows the answer
// of: the base sha, the true run flag, the list with the discarded paths
// and one other list (the remaining paths). A key is left empty when the
// report does not show it unambiguously.
func keysFromReport(data []byte, baseSHA string, discarded []string) ReportKeys {
	var obj map[string]any
	if len(data) == 0 || json.Unmarshal(data, &obj) != nil {
		return ReportKeys{}
	}
	var k ReportKeys
	var trues, lists []string
	best := 0
	for _, key := range sortedKeys(obj) {
		switch v := obj[key].(type) {
		case string:
			if v == baseSHA && k.Base == "" {
				k.Base = key
			}
		case bool:
			if v {
				trues = append(trues, key)
			}
		case []any:
			lists = append(lists, key)
			hits := 0
			for _, e := range v {
				if s, ok := e.(string); ok && slices.Contains(discarded, s) {
					hits++
				}
			}
			if hits > best {
				k.Discarded, best = key, hits
			}
		}
	}
	k.Ran = oneOf(trues, ranHint)
	others := slices.DeleteFunc(slices.Clone(lists), func(s string) bool { return s == k.Discarded })
	if k.Discarded != "" {
		k.Remaining = oneOf(others, remainingHint)
	}
	return k
}

// oneOf is the only key of keys, or the only one that hint matches.
func oneOf(keys []string, hint *regexp.Regexp) string {
	if len(keys) == 1 {
		return keys[0]
	}
	var m []string
	for _, k := range keys {
		if hint.MatchString(k) {
			m = append(m, k)
		}
	}
	if len(m) == 1 {
		return m[0]
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
