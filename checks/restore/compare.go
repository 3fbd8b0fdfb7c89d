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

// stepReport is the JSON report of the restore step. Pointers tell a
// missing key from an empty value.
type stepReport struct {
	Ran       *bool     `json:"ran"`
	Base      *string   `json:"base"`
	Discarded *[]string `json:"discarded"`
	Remaining *[]string `json:"remaining"`
	Error     string    `json:"error"`
}

// maxReport is the largest report file that is read.
const maxReport = 4 << 20

// compareReport checks the report file rel, inside the scenario folder
// root, against the model. name is the report path as the script names
// it, for messages. The step could have made the report, or a folder on
// its way, a symlink, a FIFO or a huge file: it is read with safefile, so
// it is never followed out of root, never blocks and never fills memory.
func compareReport(root, rel, name string, exp Expectation, baseSHA string) []string {
	data, err := safefile.ReadIn(root, rel, maxReport)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !exp.Ran {
			return nil // the step ran nothing and said nothing: allowed
		}
		return []string{fmt.Sprintf("the step wrote no report at %s", name)}
	case errors.Is(err, safefile.ErrNotRegular):
		return []string{fmt.Sprintf("the report at %s is not a regular file", name)}
	case errors.Is(err, safefile.ErrOutside):
		return []string{fmt.Sprintf("the report at %s leads outside the scenario folder (a symlink on its way); it is not read", name)}
	case errors.Is(err, safefile.ErrTooLarge):
		return []string{fmt.Sprintf("the report at %s has more than the limit of %d bytes", name, maxReport)}
	case err != nil:
		// The error names only the scenario's own paths.
		return []string{fmt.Sprintf("the report cannot be read: %v", err)}
	}
	var r stepReport
	if err := json.Unmarshal(data, &r); err != nil {
		return []string{fmt.Sprintf("the report is not valid JSON: %v", err)}
	}
	if r.Ran == nil {
		return []string{"the report has no \"ran\" key"}
	}
	if !exp.Ran {
		if *r.Ran {
			return []string{fmt.Sprintf("report.ran is true, the model expects false (%s)", exp.Reason)}
		}
		return nil
	}
	if !*r.Ran {
		msg := "report.ran is false, the model expects true"
		if r.Error != "" {
			msg += fmt.Sprintf(" (the report says: %s)", r.Error)
		}
		return []string{msg}
	}
	var diffs []string
	switch {
	case r.Base == nil:
		diffs = append(diffs, "report.base is missing")
	case *r.Base != baseSHA:
		diffs = append(diffs, fmt.Sprintf("report.base is %q, the model expects %q", *r.Base, baseSHA))
	}
	if r.Discarded == nil {
		diffs = append(diffs, "report.discarded is missing")
	} else {
		got := setOf(*r.Discarded)
		want := setOf(exp.Discarded)
		for _, p := range slices.Sorted(maps.Keys(want)) {
			if !got[p] {
				diffs = append(diffs, fmt.Sprintf("report.discarded misses %s", p))
			}
		}
		for _, p := range slices.Sorted(maps.Keys(got)) {
			if !want[p] {
				diffs = append(diffs, fmt.Sprintf("report.discarded lists %s, the model does not", p))
			}
		}
	}
	switch {
	case r.Remaining == nil:
		diffs = append(diffs, "report.remaining is missing")
	case len(*r.Remaining) > 0:
		rem := slices.Clone(*r.Remaining)
		slices.Sort(rem)
		diffs = append(diffs, fmt.Sprintf("report.remaining is not empty: %s", strings.Join(rem, ", ")))
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
