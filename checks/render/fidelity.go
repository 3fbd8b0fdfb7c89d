package render

import (
	"context"
	"fmt"
	"path"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/jinja"
)

// fidelityResult is the outcome of the Jinja2 cross-check.
type fidelityResult struct {
	ran      bool
	reason   string // why it did not run
	version  string
	compared int
	differ   int
	findings []checks.Finding
	notes    []string
}

type pySide struct {
	j    *job
	head bool
}

// fidelity renders the same templates with Python Jinja2 and compares bytes
// with gonja. Without a python3 that imports jinja2 it does not run, and the
// result says so: it never counts as passed.
func (c *Check) fidelity(ctx context.Context, in *checks.Input, jobs []*job) fidelityResult {
	find := c.Python
	if find == nil {
		find = jinja.FindPython
	}
	py, version, ok := find(ctx)
	if !ok {
		reason := "no python3 on this machine can import jinja2 (Debian: apt-get install python3-jinja2)."
		return fidelityResult{reason: reason, notes: []string{"The Jinja2 cross-check did not run: " + reason}}
	}
	var sides []pySide
	var pyJobs []jinja.Job
	for _, j := range jobs {
		for _, head := range []bool{false, true} {
			s := j.base
			if head {
				s = j.head
			}
			if s.env == nil {
				continue
			}
			sides = append(sides, pySide{j: j, head: head})
			pyJobs = append(pyJobs, jinja.Job{Files: s.env.Sources(), Opts: s.env.Options(), Name: s.name, Vars: j.set.Vars})
		}
	}
	results, err := jinja.RenderPythonLimits(ctx, py, pyJobs, jinja.LimitsOf(in.Config.Limits))
	if err != nil {
		reason := fmt.Sprintf("Python Jinja2 did not answer: %v.", err)
		return fidelityResult{reason: reason, notes: []string{"The Jinja2 cross-check did not run: " + reason}}
	}
	f := fidelityResult{ran: true, version: version}
	skipped, why := 0, ""
	for i, s := range sides {
		r := results[i]
		if r.Skipped != "" {
			skipped, why = skipped+1, r.Skipped
			continue
		}
		g := s.j.base
		rel := s.j.tmpl.OldRel
		where := "base"
		if s.head {
			g, rel, where = s.j.head, s.j.tmpl.Rel, "head"
		}
		file := path.Join(s.j.group.Root, rel)
		f.compared++
		switch {
		case g.err == nil && r.Err == "":
			if same, detail := jinja.Compare(g.output, r.Output); !same {
				f.differ++
				f.findings = append(f.findings, checks.Finding{
					Path: file, Level: checks.LevelWarning,
					Title:   "gonja and Jinja2 render different bytes",
					Message: fmt.Sprintf("At %s, for %s, gonja and Python Jinja2 render different bytes.", where, s.j.set.Name),
					Details: detail,
				})
			}
		case g.err == nil && r.Err != "":
			f.differ++
			if r.File != "" {
				file = path.Join(s.j.group.Root, r.File)
			}
			lvl := checks.LevelWarning
			if s.head {
				lvl = checks.LevelFailure // production renders with Jinja2
			}
			f.findings = append(f.findings, checks.Finding{
				Path: file, Line: r.Line, Level: lvl,
				Title:   "Jinja2 fails where gonja renders",
				Message: fmt.Sprintf("At %s, for %s, Python Jinja2 fails: %s", where, s.j.set.Name, r.Err),
			})
		case g.err != nil && r.Err == "":
			f.differ++
			f.findings = append(f.findings, checks.Finding{
				Path: file, Level: checks.LevelWarning,
				Title:   "gonja fails where Jinja2 renders",
				Message: fmt.Sprintf("At %s, for %s, Python Jinja2 renders the template, so the gonja error may be a gonja limit.", where, s.j.set.Name),
			})
		}
	}
	if skipped > 0 {
		f.notes = append(f.notes, fmt.Sprintf("The Jinja2 cross-check skipped %d of %d renders: %s.", skipped, len(sides), why))
	}
	return f
}
