package restore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/safefile"
)

// compareTrees lists, in path order, how the real tree after the step
// differs from the model's tree. work is the agent's tree before the step.
func compareTrees(p *Policy, exp Expectation, real, base, work fixture.Tree) []string {
	paths := map[string]bool{}
	for k := range exp.Tree {
		paths[k] = true
	}
	for k := range real {
		paths[k] = true
	}
	var diffs []string
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		want, inWant := exp.Tree[path]
		got, inGot := real[path]
		fromBase := exp.Ran && p.Protects(path)
		switch {
		case inWant && !inGot:
			if fromBase {
				diffs = append(diffs, fmt.Sprintf("%s: missing, the model restores it from base", path))
			} else {
				diffs = append(diffs, fmt.Sprintf("%s: missing, the model keeps the agent's file", path))
			}
		case !inWant && inGot:
			if _, agent := work[path]; agent {
				diffs = append(diffs, fmt.Sprintf("%s: still present, the model deletes it", path))
			} else {
				diffs = append(diffs, fmt.Sprintf("%s: present, but the model expects no such file", path))
			}
		case got.Mode != want.Mode && (got.IsSymlink() || want.IsSymlink()):
			diffs = append(diffs, fmt.Sprintf("%s: is a %s, the model expects a %s", path, got.Kind(), want.Kind()))
		case got.IsSymlink() && string(got.Data) != string(want.Data):
			diffs = append(diffs, fmt.Sprintf("%s: symlink points to %q, the model expects %q", path, got.Data, want.Data))
		case string(got.Data) != string(want.Data):
			switch b, inBase := base[path]; {
			case fromBase:
				diffs = append(diffs, fmt.Sprintf("%s: content differs from base", path))
			case inBase && string(got.Data) == string(b.Data):
				diffs = append(diffs, fmt.Sprintf("%s: content is back at base, the model keeps the agent's change", path))
			default:
				diffs = append(diffs, fmt.Sprintf("%s: content differs from the agent's version", path))
			}
		case got.Mode != want.Mode:
			diffs = append(diffs, fmt.Sprintf("%s: mode is %s, the model expects %s", path, got.Mode, want.Mode))
		}
	}
	return diffs
}

// maxReport is the largest report file that is read.
const maxReport = 4 << 20

// compareReport checks the report file rel, inside the scenario folder
// root, against the model, reading each value under the key the step
// uses for it (keys). name is the report path as the script names it,
// for messages. The step could have made the report, or a folder on
// its way, a symlink, a FIFO or a huge file: it is read with safefile, so
// it is never followed out of root, never blocks and never fills memory.
// It returns the differences and the report's bytes (nil when unread).
func compareReport(root, rel, name string, exp Expectation, baseSHA string, keys ReportKeys) ([]string, []byte) {
	data, err := safefile.ReadIn(root, rel, maxReport)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !exp.Ran {
			return nil, nil // the step ran nothing and said nothing: allowed
		}
		return []string{fmt.Sprintf("the step wrote no report at %s", name)}, nil
	case errors.Is(err, safefile.ErrNotRegular):
		return []string{fmt.Sprintf("the report at %s is not a regular file", name)}, nil
	case errors.Is(err, safefile.ErrOutside):
		return []string{fmt.Sprintf("the report at %s leads outside the scenario folder (a symlink on its way); it is not read", name)}, nil
	case errors.Is(err, safefile.ErrTooLarge):
		return []string{fmt.Sprintf("the report at %s has more than the limit of %d bytes", name, maxReport)}, nil
	case err != nil:
		// The error names only the scenario's own paths.
		return []string{fmt.Sprintf("the report cannot be read: %v", err)}, nil
	}
	return judgeReport(data, exp, baseSHA, keys), data
}

// judgeReport compares the report's values with the model.
func judgeReport(data []byte, exp Expectation, baseSHA string, keys ReportKeys) []string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return []string{fmt.Sprintf("the report is not valid JSON: %v", err)}
	}
	var ran *bool
	var base *string
	var discarded, remaining *[]string
	var reportErr string
	decode := func(key string, dst any) bool {
		raw, ok := obj[key]
		return ok && key != "" && json.Unmarshal(raw, dst) == nil
	}
	var b bool
	if decode(keys.Ran, &b) {
		ran = &b
	}
	var sha string
	if decode(keys.Base, &sha) {
		base = &sha
	}
	var d, rem []string
	if decode(keys.Discarded, &d) {
		discarded = &d
	}
	if decode(keys.Remaining, &rem) {
		remaining = &rem
	}
	decode(keys.Error, &reportErr)
	if ran == nil {
		return []string{fmt.Sprintf("the report has no %q key", keys.Ran)}
	}
	if !exp.Ran {
		if *ran {
			return []string{fmt.Sprintf("report.%s is true, the model expects false (%s)", keys.Ran, exp.Reason)}
		}
		return nil
	}
	if !*ran {
		msg := fmt.Sprintf("report.%s is false, the model expects true", keys.Ran)
		if reportErr != "" {
			msg += fmt.Sprintf(" (the report says: %s)", reportErr)
		}
		return []string{msg}
	}
	var diffs []string
	switch {
	case base == nil:
		diffs = append(diffs, fmt.Sprintf("report.%s is missing", keys.Base))
	case *base != baseSHA:
		diffs = append(diffs, fmt.Sprintf("report.%s is %q, the model expects %q", keys.Base, *base, baseSHA))
	}
	if discarded == nil {
		diffs = append(diffs, fmt.Sprintf("report.%s is missing", keys.Discarded))
	} else {
		got := setOf(*discarded)
		want := setOf(exp.Discarded)
		for _, p := range slices.Sorted(maps.Keys(want)) {
			if !got[p] {
				diffs = append(diffs, fmt.Sprintf("report.%s misses %s", keys.Discarded, p))
			}
		}
		for _, p := range slices.Sorted(maps.Keys(got)) {
			if !want[p] {
				diffs = append(diffs, fmt.Sprintf("report.%s lists %s, the model does not", keys.Discarded, p))
			}
		}
	}
	switch {
	case remaining == nil:
		diffs = append(diffs, fmt.Sprintf("report.%s is missing", keys.Remaining))
	case len(*remaining) > 0:
		r := slices.Clone(*remaining)
		slices.Sort(r)
		diffs = append(diffs, fmt.Sprintf("report.%s is not empty: %s", keys.Remaining, strings.Join(r, ", ")))
	}
	return diffs
}

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
