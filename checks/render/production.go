package render

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

// engineResult says which engine made the bytes of record.
type engineResult struct {
	jinja2   bool   // Python Jinja2 rendered: its bytes are production's
	reason   string // why it did not
	version  string
	rendered int // renders Jinja2 made
	differ   int // renders where gonja and Jinja2 disagree
	skipped  int
	notes    []string
}

// maxEngineExamples is how many gonja/Jinja2 differences the notes name.
const maxEngineExamples = 3

// production renders every side again with Python Jinja2, the engine
// datasmith renders with, and makes its results the bytes of record: they
// replace gonja's output and errors, so bash -n, the diff and the findings
// see what production makes. gonja's render stays for the include graph,
// the error lines and the machine without Jinja2. Where the engines
// disagree, the notes say so: an engine difference is not the PR's.
func (c *Check) production(ctx context.Context, in *checks.Input, jobs []*job) engineResult {
	find := c.Python
	if find == nil {
		find = jinja.FindPython
	}
	py, version, ok := find(ctx)
	if !ok {
		reason := "no python3 on this machine can import jinja2 (Debian: apt-get install python3-jinja2)"
		return engineResult{reason: reason, notes: []string{"gonja rendered every template: " + reason + ". The bytes may differ from production's, which Python Jinja2 renders."}}
	}
	var sides []*side
	var names []string // "file (base|head, set)"
	var pyJobs []jinja.Job
	for _, j := range jobs {
		for _, head := range []bool{false, true} {
			s, rel, where := &j.base, j.tmpl.OldRel, "base"
			if head {
				s, rel, where = &j.head, j.tmpl.Rel, "head"
			}
			var je *jinja.Error
			if s.env == nil || (errors.As(s.err, &je) && je.Stopped) {
				continue // not rendered, or stopped by a limit: Jinja2 would stop too
			}
			sides = append(sides, s)
			names = append(names, fmt.Sprintf("%s (%s, %s)", path.Join(j.group.Root, rel), where, j.set.Name))
			pyJobs = append(pyJobs, jinja.Job{Files: s.env.Sources(), Opts: s.env.Options(), Name: s.name, Vars: j.set.Vars})
		}
	}
	results, err := jinja.RenderPythonLimits(ctx, py, pyJobs, jinja.LimitsOf(in.Config.Limits))
	if err != nil {
		reason := fmt.Sprintf("Python Jinja2 did not answer: %v", err)
		return engineResult{reason: reason, notes: []string{"gonja rendered every template: " + reason + "."}}
	}
	e := engineResult{jinja2: true, version: version}
	var examples []string
	why := ""
	for i, s := range sides {
		r := results[i]
		if r.Skipped != "" {
			e.skipped++
			why = r.Skipped
			continue
		}
		e.rendered++
		s.engine = "Jinja2"
		diff := ""
		switch {
		case s.err == nil && r.Err == "":
			if same, detail := jinja.Compare(s.output, r.Output); !same {
				diff = firstLine(detail)
			}
			s.output = r.Output
		case s.err == nil && r.Err != "":
			diff = "Jinja2 fails (" + r.Err + "), gonja renders"
			s.output, s.err = "", jinja.PyError(s.env, s.name, r)
		case s.err != nil && r.Err == "":
			diff = "gonja fails (" + firstLine(s.err.Error()) + "), Jinja2 renders"
			s.output, s.err = r.Output, nil
		default:
			// Both fail: gonja's error keeps its line mapping (the line of
			// an unclosed block, of the statement in an include), unless it
			// has no line.
			s.err = jinja.BothFailed(s.env, s.name, s.err, r)
		}
		if diff != "" {
			e.differ++
			if len(examples) < maxEngineExamples {
				examples = append(examples, names[i]+": "+diff)
			}
		}
	}
	e.notes = append(e.notes, fmt.Sprintf("Python Jinja2 %s rendered %s, as production does: its bytes feed bash -n, the diff and the findings.", version, plural(e.rendered, "render")))
	if e.differ > 0 {
		e.notes = append(e.notes, fmt.Sprintf("gonja renders %d of them differently, an engine difference and not a finding against this change: %s.",
			e.differ, strings.Join(examples, "; ")))
	}
	if e.skipped > 0 {
		e.notes = append(e.notes, fmt.Sprintf("Python Jinja2 skipped %d of %d renders (%s); gonja's bytes stand for them.", e.skipped, len(sides), why))
	}
	return e
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}
