// The policy probe: one run of a revision's step over many plainly edited
// paths shows which paths it puts back. That set of paths, not the
// patterns the tool can read, is the revision's policy.

package restore

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fixture"
)

// probeSeeds are generated names that the fixture holds for the probe,
// besides the project's files and the paths made from patterns: test,
// benchmark, CI and source files in folders a policy may or may not
// protect.
var probeSeeds = []string{
	"tests/test_x.py",
	"tests/unit/test_y.py",
	"benchmarks/bench_x.py",
	"benchmarks/suite/bench_y.py",
	".github/workflows/probe.yml",
	".snapshots/probe/snap_x.json",
	"src/pkg/mod.py",
	"src/pkg/sub/helpers.py",
	"lib/extra.py",
	"docs/guide.md",
}

// nameVariant is a name in the same folder as a seed that differs from it
// only by characters a restore step may mishandle.
type nameVariant struct {
	Kind string // "a space", "a quote", ...
	Path string
}

// nameGroup is a seed path of the probe fixture and its variants: the
// step must treat them alike.
type nameGroup struct {
	Seed     string
	Variants []nameVariant
}

// variantsOf are the names beside p that differ only by a space, quotes,
// a non-ASCII letter or a leading dash (glob is false), or by glob
// characters (glob is true). The glob names get a folder of their own: a
// step that lets the shell expand "test_x*.py" puts back every name
// beside it, which would hide a step that splits names at spaces.
func variantsOf(p string, glob bool) []nameVariant {
	dir, file := path.Split(p)
	ext := path.Ext(file)
	stem := strings.TrimSuffix(file, ext)
	if glob {
		return []nameVariant{
			{"glob brackets", dir + stem + "[1]" + ext},
			{"a glob star", dir + stem + "*" + ext},
		}
	}
	return []nameVariant{
		{"a space", dir + stem + " x" + ext},
		{"a single quote", dir + stem + "'q" + ext},
		{"a double quote", dir + stem + `"q` + ext},
		{"a non-ASCII letter", dir + stem + "é" + ext},
		{"a leading dash", dir + "-" + file},
	}
}

// probeFiles are the files the probe fixture adds to tree: the seeds and
// their variants, none of them a path of tree or one of avoid (the paths
// the scenarios add). It returns the files and the groups of names that
// must be treated alike.
func probeFiles(tree fixture.Tree, avoid []string) (fixture.Tree, []nameGroup) {
	used := map[string]bool{}
	mark := func(p string) {
		used[p] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			used[d+"/"] = true
		}
	}
	for p := range tree {
		mark(p)
	}
	for _, p := range avoid {
		mark(p)
	}
	extra := fixture.Tree{}
	var groups []nameGroup
	for i, name := range probeSeeds {
		globSeed := path.Join(path.Dir(name), "g", path.Base(name))
		for _, sd := range []struct {
			path string
			glob bool
		}{{name, false}, {globSeed, true}} {
			if collides(sd.path, used) {
				continue
			}
			mark(sd.path)
			extra[sd.path] = fixture.File(fmt.Sprintf("probe sample %d\n", i+1))
			g := nameGroup{Seed: sd.path}
			for _, v := range variantsOf(sd.path, sd.glob) {
				if !validPath(v.Path) || collides(v.Path, used) {
					continue
				}
				mark(v.Path)
				extra[v.Path] = fixture.File(fmt.Sprintf("probe sample %d (%s)\n", i+1, v.Kind))
				g.Variants = append(g.Variants, v)
			}
			groups = append(groups, g)
		}
	}
	return extra, groups
}

// probeEdit is the plain edit of the probe: a line appended to every
// regular file of the base tree (symlinks are left: an append would
// follow them), with its mode kept, and a new untracked file next to
// each (addedNameOf), so that the probe also learns what the step does
// with added files.
func probeEdit(base fixture.Tree) Scenario {
	var edits []Edit
	added := addedNames(base)
	for _, p := range base.Paths() {
		if base[p].IsSymlink() {
			continue
		}
		edits = append(edits, appendTo(p, "# changed by the probe\n"))
		if n, ok := added[p]; ok {
			edits = append(edits, write(n, "added by the probe\n"))
		}
	}
	return Scenario{Name: "probe-policy", Edits: edits}
}

// probeResult is what one probe run of a revision's step shows.
type probeResult struct {
	// Learned says, per probed path, whether the step put it back (true)
	// or left the agent's edit (false). Nil when nothing was learned.
	Learned map[string]bool
	// Odd lists the probed paths that the step neither put back nor left
	// as the agent left them (deleted, other content or mode).
	Odd []string
	// Err says why nothing was learned.
	Err string
	Out Outcome
	// Reused: the base's probe is the head's (the same step and fixture).
	Reused bool
	// Cached is the key of the stored probe this result is read from
	// (probecache.go); "" when the probe ran.
	Cached string
}

// protected lists the learned paths the step puts back, sorted.
func (p probeResult) protected() []string {
	var out []string
	for q, v := range p.Learned {
		if v {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

// learnPolicy runs the probe with the runner's step: every regular file
// of the base tree edited, the baseline file in place. A step that does
// not end cleanly, or whose report says it did not run, teaches nothing:
// the patterns then judge, and Err says why.
func (r *runner) learnPolicy(ctx context.Context) probeResult {
	out := r.run(ctx, probeEdit(r.base))
	res := probeResult{Out: out}
	switch {
	case out.Verdict == TimedOut:
		res.Err = "the probe run timed out"
	case out.Verdict == Broken:
		res.Err = fmt.Sprintf("the probe run cannot be set up: %v", out.Err)
	case out.ExitCode != 0:
		res.Err = fmt.Sprintf("the probe run exits with code %d", out.ExitCode)
	case out.After == nil:
		res.Err = "the tree after the probe run cannot be read"
	case reportSaysNotRun(out.Report, r.reportKeys()):
		res.Err = "the probe run's report says the step did not run"
	}
	if res.Err != "" {
		return res
	}
	res.Learned = map[string]bool{}
	for _, q := range r.base.Paths() {
		b, w := r.base[q], out.Work[q]
		if b.IsSymlink() {
			continue
		}
		got, ok := out.After[q]
		switch {
		case ok && got.Same(b):
			res.Learned[q] = true
		case ok && got.Same(w):
			res.Learned[q] = false
		default:
			res.Odd = append(res.Odd, q)
		}
	}
	// The added files: put back is gone, left is as the probe wrote it.
	for _, q := range out.Work.Paths() {
		if _, inBase := r.base[q]; inBase {
			continue
		}
		got, ok := out.After[q]
		switch {
		case !ok:
			res.Learned[q] = true
		case got.Same(out.Work[q]):
			res.Learned[q] = false
		default:
			res.Odd = append(res.Odd, q)
		}
	}
	return res
}

// reportSaysNotRun reports whether a JSON report holds the run flag
// false.
func reportSaysNotRun(data []byte, keys ReportKeys) bool {
	var obj map[string]json.RawMessage
	if len(data) == 0 || json.Unmarshal(data, &obj) != nil {
		return false
	}
	var ran bool
	raw, ok := obj[keys.Ran]
	return ok && json.Unmarshal(raw, &ran) == nil && !ran
}

// violation is one path the step does not treat as it treats another
// path it must treat alike.
type violation struct {
	Scenario string
	Path     string
	Message  string
}

// nameViolations are the variants the probe treated otherwise than their
// seed. A difference that the step's own readable patterns give (the
// pattern protects one name and not the other) is the policy, not a bug.
func nameViolations(p probeResult, groups []nameGroup, pol revisionPolicy, patterns *Policy) []violation {
	if p.Learned == nil {
		return nil
	}
	var out []violation
	for _, g := range groups {
		seed, ok := p.Learned[g.Seed]
		if !ok {
			continue
		}
		for _, v := range g.Variants {
			got, ok := p.Learned[v.Path]
			if !ok || got == seed {
				continue
			}
			if pol.Origin == fromStep && patterns.MatchesPatterns(g.Seed) != patterns.MatchesPatterns(v.Path) {
				continue
			}
			out = append(out, violation{Scenario: "probe-policy", Path: v.Path,
				Message: fmt.Sprintf("%s is %s, but %s, the same name with %s in the same folder, is %s", g.Seed, treated(seed), v.Path, v.Kind, treated(got))})
		}
	}
	for _, q := range p.Odd {
		out = append(out, violation{Scenario: "probe-policy", Path: q,
			Message: fmt.Sprintf("%s is neither put back to the base nor left as the agent left it", q)})
	}
	return out
}

func treated(protected bool) string {
	if protected {
		return "put back to the base"
	}
	return "left as the agent left it"
}

// drift compares the base's learned policy with the head's, over the
// paths both learned: the paths the head stops protecting and those it
// starts protecting, sorted.
func drift(base, head probeResult) (stops, starts []string) {
	if base.Learned == nil || head.Learned == nil {
		return nil, nil
	}
	for q, b := range base.Learned {
		h, ok := head.Learned[q]
		switch {
		case !ok:
		case b && !h:
			stops = append(stops, q)
		case !b && h:
			starts = append(starts, q)
		}
	}
	slices.Sort(stops)
	slices.Sort(starts)
	return stops, starts
}

// released reports whether a restore.released entry names p: the path
// itself, a folder of it ("tests/" or "tests"), or a glob (path.Match).
func released(p string, list []string) bool {
	for _, r := range list {
		r = strings.TrimSuffix(r, "/")
		if r == p || strings.HasPrefix(p, r+"/") {
			return true
		}
		if ok, err := path.Match(r, p); err == nil && ok {
			return true
		}
	}
	return false
}

// maxListed bounds the paths a message names; the details hold all.
const maxListed = 8

func listPaths(ps []string) string {
	q := make([]string, 0, min(len(ps), maxListed))
	for _, p := range ps[:min(len(ps), maxListed)] {
		q = append(q, code(p))
	}
	s := strings.Join(q, ", ")
	if len(ps) > maxListed {
		s += fmt.Sprintf(" and %d more", len(ps)-maxListed)
	}
	return s
}

// probeFindings judges what the probes show: the names the head's step
// does not treat alike (a failure, a warning "fails before this change"
// when the base's step has the same violation), and the paths the head
// stops protecting (a failure unless restore.released lists them) or
// starts protecting (a note). It reports whether the head fails.
func probeFindings(res *checks.Result, r *runner, head, base probeResult, baseRunner *runner, groups []nameGroup, releasedList []string, strict bool) (failed bool) {
	tmpl, line := r.step.Template, r.pol.TemplateLine
	if line == 0 {
		line = r.step.Line
	}
	switch {
	case head.Err != "":
		res.Notes = append(res.Notes, fmt.Sprintf("The head's policy is not learned (%s), so the patterns judge every path.", head.Err))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("The head's policy is learned from one probe run over %s: the step puts back %s.",
			plural(len(head.Learned)+len(head.Odd), "edited path", "edited paths"), plural(len(head.protected()), "of them", "of them")))
		if unexplained := unexplainedPaths(head, r.policy); len(unexplained) > 0 && r.pol.Origin == fromStep {
			res.Notes = append(res.Notes, fmt.Sprintf("The step's patterns do not explain what it does with %s: the probe decides.", listPaths(unexplained)))
		}
	}
	for _, c := range []struct {
		side string
		p    probeResult
	}{{"head", head}, {"base", base}} {
		if c.p.Cached != "" && !c.p.Reused {
			res.Notes = append(res.Notes, fmt.Sprintf("The %s's probe is an earlier run's (key %s): the same step on the same fixture, with the same settings, learns the same policy, so it did not run again.", c.side, c.p.Cached[:12]))
		}
	}
	if base.Reused {
		res.Notes = append(res.Notes, "The restore step renders to the same bytes at base and head, on the same fixture: the base's probe is the head's, reused.")
	} else if base.Err != "" && baseRunner != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("The base's policy is not learned (%s), so the base's patterns judge it.", base.Err))
	}
	var baseViolations []violation
	if baseRunner != nil {
		baseViolations = nameViolations(base, groups, baseRunner.pol, baseRunner.policy)
	}
	for _, v := range nameViolations(head, groups, r.pol, r.policy) {
		f := checks.Finding{Path: tmpl, Line: line, Level: checks.LevelFailure,
			Title:   fmt.Sprintf("Restore scenario %s: %s is not treated alike", v.Scenario, v.Path),
			Message: fmt.Sprintf("Scenario %s, path %s: %s.", v.Scenario, v.Path, v.Message)}
		if slices.ContainsFunc(baseViolations, func(b violation) bool { return b.Message == v.Message }) {
			f.Title += "; it fails before this change"
			f.Message += " The base's step does the same, so it fails before this change."
			if !strict {
				f.Level = checks.LevelWarning
			}
		}
		failed = failed || f.Level == checks.LevelFailure
		res.Findings = append(res.Findings, f)
	}
	stops, starts := drift(base, head)
	var kept []string
	for _, q := range stops {
		if released(q, releasedList) {
			kept = append(kept, q)
			continue
		}
		failed = true
		res.Findings = append(res.Findings, checks.Finding{Path: tmpl, Line: line, Level: checks.LevelFailure,
			Title:   "The head stops protecting " + q,
			Message: fmt.Sprintf("The head stops protecting %s: the base's step puts it back after an edit, the head's leaves the agent's edit. List it in restore.released if the change means to release it.", q)})
	}
	if len(kept) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("The head stops protecting %s, which restore.released lists.", listPaths(kept)))
	}
	if len(starts) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("The head newly protects %s.", listPaths(starts)))
	}
	return failed
}

// unexplainedPaths are the learned paths where the step's behaviour and
// its readable patterns disagree, sorted.
func unexplainedPaths(p probeResult, pol *Policy) []string {
	var out []string
	for q, v := range p.Learned {
		if pol.MatchesPatterns(q) != v {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

// catalogueNewPaths are the paths the catalogue's edits create that tree
// does not hold: the probe fixture must not hold them either.
func catalogueNewPaths(tree fixture.Tree) []string {
	var out []string
	for _, sc := range Catalogue() {
		for _, e := range sc.Edits {
			switch e.Op {
			case OpWrite, OpAppend, OpSymlink:
				if _, ok := tree[e.Path]; !ok {
					out = append(out, e.Path)
				}
			case OpMove:
				out = append(out, e.Arg)
			}
		}
	}
	return out
}

// probe learns the policy of the head's step and of the base's (side), one
// probe run each, at the same time, and makes each runner's policy judge
// by it. A base step that is the same bytes as the head's, on the same
// fixture, reuses the head's probe. The runs count as scenario runs.
func (r *runner) probe(ctx context.Context, side baseSide) (head, base probeResult) {
	br := side.runner
	runBase := br != nil && !side.unchanged
	n := 1
	if runBase {
		n = 2
	}
	checks.AddWork(ctx, n, "scenario runs")
	var wg sync.WaitGroup
	if runBase {
		runIt := func() {
			base = br.learnPolicyCached(ctx)
			checks.WorkDone(ctx, 1)
		}
		if r.opts.Parallel > 1 {
			wg.Go(runIt)
		} else {
			runIt()
		}
	}
	head = r.learnPolicyCached(ctx)
	checks.WorkDone(ctx, 1)
	wg.Wait()
	r.policy.Learn(head.Learned, r.pol.Origin != fromStep)
	if br != nil {
		if side.unchanged {
			base = head
			base.Reused = true
		}
		br.policy.Learn(base.Learned, br.pol.Origin != fromStep)
	}
	return head, base
}

// probeRuns is the number of probe runs a check made: the head's, and
// the base's unless it reuses the head's; a probe read from the probe
// cache did not run.
func probeRuns(side baseSide, head, base probeResult) int {
	n := 0
	if head.Cached == "" {
		n++
	}
	if side.runner != nil && !side.unchanged && base.Cached == "" {
		n++
	}
	return n
}

// probeRunsText is the probe runs for the wall time figure.
func probeRunsText(n int) string {
	if n == 0 {
		return ""
	}
	return ", plus " + plural(n, "policy probe", "policy probes")
}
