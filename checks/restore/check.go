package restore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/scratch"
)

// Check is the restore check. It needs in.Config.Restore: verify runs it
// only when the config has a restore block (config.Disabled decides).
type Check struct {
	opts   Options
	phases *phases // set by a benchmark
}

// New returns the restore check with default options.
func New() *Check { return &Check{} }

// WithOptions returns a copy of the check that runs with the options o.
func (c *Check) WithOptions(o Options) *Check { return &Check{opts: o} }

// Name implements checks.Check.
func (c *Check) Name() string { return "restore" }

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	res, _ := c.run(ctx, in)
	return res
}

// run is Run that also returns what the result is made of: the outcome of
// every scenario and the base side, as data (nil when no scenario ran).
func (c *Check) run(ctx context.Context, in *checks.Input) (checks.Result, *resultInput) {
	start := time.Now()
	res := checks.Result{Check: c.Name()}
	found, searched := locate(ctx, in)
	if found != in {
		if found.Config != in.Config && found.Config.Restore.Command != "" {
			res.Notes = append(res.Notes, fmt.Sprintf("No config file names the restore step, and %s has no restore section like datasmith's. The step is %s, a template of its own that another template runs: %s.",
				in.Config.Restore.Template, found.Config.Restore.Template, markdown.Code(found.Config.Restore.Command)))
		} else if found.Config != in.Config {
			res.Notes = append(res.Notes, fmt.Sprintf("No config file names the restore step, and %s has no restore section like datasmith's. The step is the part of %s under %s: it holds the grep that filters git's changed paths.",
				in.Config.Restore.Template, found.Config.Restore.Template, markdown.Code(strings.TrimSuffix(strings.TrimPrefix(found.Config.Restore.Section.Start, "^"), "$"))))
		}
		in = found
	}
	r, cleanup, st := c.setup(ctx, in)
	if st != nil {
		res.Conclusion, res.Title, res.Summary = st.conclusion, st.title, st.title
		if (st.noFile || st.noSection) && !in.Config.Restore.Explicit {
			// The default block names datasmith's template, which this
			// repository may never have had: say what was searched.
			if st.conclusion == checks.NotRun {
				res.Title = "The restore check does not run: no template of the config's groups holds a restore step."
				res.Summary = res.Title + " " + st.title
			}
			res.Notes = append(res.Notes, searchedNote(searched))
		}
		if st.finding != nil {
			res.Findings = append(res.Findings, *st.finding)
			res.Summary = st.finding.Message
		}
		return res, nil
	}
	defer cleanup()
	// Whether the step renders the same at base and head in every
	// variable set, and the base's step as production renders it on the
	// head's fixture, decide the skip below, the cache key and the base
	// side: each is rendered once. (The base side's learnFallback sets
	// the base step's FallsBack after the skip and the key have read it.)
	same, sets := sameAtBase(ctx, in, r.baseSHA)
	baseStep, baseStop := renderBaseStep(ctx, in, r)
	// A step that renders to the same bytes at base and head, with the
	// same settings, cannot change what any scenario shows: none runs,
	// unless the base's failures fail the PR too (pre_existing: fail) or
	// the caller named the scenarios.
	if c.opts.Catalogue == nil && !config.PreExistingFails(in.BaseConfig, in.Config) {
		if same && sameStepRuns(r.step, baseStep) {
			return unchangedResult(res, r.step, sets), nil
		}
	}
	rc := in.Config.Restore
	// A run with the same steps at base and head, settings and fixture
	// as an earlier one gives its result: reuse it when that run stored
	// it.
	var key string
	cache := resultcache.At(r.opts.Cache, "")
	if r.opts.Cache == "" {
		cache = resultcache.Open(ctx, "restore")
	}
	if cache.On() {
		key = cacheKey(r, in, c.opts.Catalogue, sets, baseStepText(baseStep, baseStop))
		if cached, ok := cachedResult(cache, key); ok {
			cached.Notes = append(cached.Notes, reusedNote(key))
			if len(cached.Figures) > 0 {
				cached.Figures[0].Command = reproduce(in)
			}
			for i, f := range cached.Figures {
				if f.Label == wallLabel {
					cached.Figures[i].Value = "no scenario ran: the stored result of an earlier run is reused"
				}
			}
			return cached, nil
		}
	}
	policyFailed := policyResults(&res, in, r)
	var keysNote string
	r.keys, keysNote = r.learnKeys(ctx, rc.ReportKeys)
	if keysNote != "" {
		res.Notes = append(res.Notes, keysNote)
	}
	if note := r.learnFallback(ctx, rc.Explicit); note != "" {
		res.Notes = append(res.Notes, note)
	}
	// One probe per revision learns its policy; a step that is the same
	// bytes at base and head on the same fixture is probed once.
	side := newBaseSide(ctx, in, r, same, sets, baseStep, baseStop)
	headProbe, baseProbe := r.probe(ctx, side)
	released, note := releasedAtBase(in)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	probeFailed := probeFindings(&res, r, headProbe, baseProbe, side.runner, r.groups, released, config.PreExistingFails(in.BaseConfig, in.Config))
	catOuts := r.runAll(ctx, r.scenarioList(c.opts, headProbe))
	ri := resultInput{step: r.step, seed: rc.Random.Seed, count: rc.Random.Count, catalogue: catOuts, parallel: r.opts.Parallel, command: reproduce(in), probes: probeRuns(side, headProbe, baseProbe)}
	// A step that hangs in the catalogue would hang in the random sets
	// too, each until the time limit: skip them and say so.
	for _, o := range catOuts {
		if o.Verdict == TimedOut {
			ri.skipReason = "a catalogue scenario timed out"
			break
		}
	}
	if ri.skipReason == "" && rc.Random.Count > 0 {
		ri.random = r.runAll(ctx, RandomScenarios(r.base, rc.Random.Seed, rc.Random.Count, generatedNewPaths(r.generated)...))
	}
	ri.cmp = compareWithBase(ctx, in, side, ri.catalogue, ri.random)
	// Only the failures this change causes are worth the shrink runs.
	ri.shrunk = r.shrinkFailures(ctx, ri.random, func(i int) bool { return cmpAt(ri.cmp.Random, i).PreExisting })
	ri.wall = time.Since(start)
	if ctx.Err() != nil {
		return cutShort(ctx, res, ri), nil
	}
	assemble(&res, ri)
	if policyFailed {
		res.Conclusion = checks.Failure
		res.Title = "The step's restore patterns differ from the config; " + res.Title
	}
	if probeFailed {
		res.Conclusion = checks.Failure
		res.Title = "The restore probe shows paths the step does not treat alike or stops protecting; " + res.Title
	}
	if key != "" && cacheable(ri) {
		cache.Write(key, res)
	}
	return res, &ri
}

// Replay runs one scenario, for example a shrunk random set read back with
// ParseEdits, with the same step, policy and fixture as Run.
func (c *Check) Replay(ctx context.Context, in *checks.Input, sc Scenario) (Outcome, error) {
	in, _ = locate(ctx, in)
	r, cleanup, st := c.setup(ctx, in)
	if st != nil {
		return Outcome{}, errors.New(st.title)
	}
	defer cleanup()
	return r.run(ctx, sc), nil
}

// setup renders the step, compiles the policy and builds the base fixture.
// The step renders once, before the fixture is built: the template's
// base_commit renders as the sha the fixture's commit will have, which is
// computed first without writing anything.
func (c *Check) setup(ctx context.Context, in *checks.Input) (*runner, func(), *stop) {
	if c.phases != nil {
		defer func(start time.Time) { c.phases.setup.Add(int64(time.Since(start))) }(time.Now())
	}
	rc := in.Config.Restore
	internal := func(title string, err error) *stop {
		return &stop{conclusion: checks.Failure, title: fmt.Sprintf("%s: %v", title, err)}
	}
	// The step renders first with a stand-in sha: its policy (and the
	// base's) decides the fixture's protected files, and the fixture's
	// tree decides the sha the step then renders with.
	probe, st := prepareStep(ctx, in, rc, "")
	if st != nil {
		return nil, nil, st
	}
	headPol := policyOf(probe, rc)
	basePol := basePolicy(ctx, in)
	union := slices.Clone(headPol.Patterns)
	if basePol != nil {
		union = append(union, basePol.Patterns...)
	}
	unionPolicy, err := NewPolicy(union)
	if err != nil {
		return nil, nil, internal("The restore policy is not valid", err)
	}
	gen, skipped := generatePaths(union, fixture.Project(), unionPolicy.Protects)
	tree := withGenerated(fixture.Project(), gen)
	// The probe's own names join the base: paths the scenarios add stay
	// out of it.
	extra, groups := probeFiles(tree, append(generatedNewPaths(gen), catalogueNewPaths(tree)...))
	maps.Copy(tree, extra)
	sha, err := fixture.CommitSHA(tree, baseMessage)
	if err != nil {
		return nil, nil, internal("The restore check cannot build its fixture", err)
	}
	step, st := renderStep(ctx, in.Plan.Trees, in.Config, rc, in.Plan.Head, "head", sha)
	if st != nil {
		return nil, nil, st
	}
	policy, err := NewPolicy(headPol.Patterns)
	if err != nil {
		return nil, nil, internal("The restore policy is not valid", err)
	}
	root, cleanup, err := workRoot(in.WorkDir, c.opts.Keep)
	if err != nil {
		return nil, nil, internal("The restore check cannot make its folders", err)
	}
	built, err := prepare(root, tree)
	if err == nil && built.SHA != sha {
		err = fmt.Errorf("the fixture's commit is %s, not %s", built.SHA, sha)
	}
	if err != nil {
		cleanup()
		return nil, nil, internal("The restore check cannot build its fixture", err)
	}
	opts := c.opts.settle()
	return &runner{step: step, policy: policy, pol: headPol, basePol: basePol, generated: gen, skippedPatterns: skipped, groups: groups, keys: defaultReportKeys,
		base: built.Tree, baseSHA: sha, src: built, root: root, opts: opts, phases: c.phases}, cleanup, nil
}

// workRoot is the folder for the fixture and the scenario folders: in
// RAM where the machine has a tmpfs with room (see internal/scratch: the
// scenarios' file work costs much more on a disk), else under the run's
// work folder. Kept scenario folders stay under the work folder.
func workRoot(workDir string, keep bool) (string, func(), error) {
	if !keep {
		dir, err := scratch.MkdirTemp(workDir, "template-verify-restore-*")
		if err != nil {
			return "", nil, err
		}
		return dir, func() { _ = os.RemoveAll(dir) }, nil
	}
	if workDir == "" {
		dir, err := os.MkdirTemp("", "template-verify-restore-")
		return dir, func() {}, err
	}
	dir, err := os.MkdirTemp(workDir, "restore-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() {}, nil
}

func reproduce(in *checks.Input) string {
	if in.Plan == nil || in.Plan.BaseRev == "" || in.Plan.HeadRev == "" {
		return ""
	}
	return fmt.Sprintf("template-verify run --repo . --base %s --head %s --only restore", in.Plan.BaseRev, in.Plan.HeadRev)
}

// shrunkSet is a failing random set cut down to a minimal edit list, with
// the outcome of that list.
type shrunkSet struct {
	Edits   []Edit
	Outcome Outcome
}

// shrinkFailures shrinks the first failing random sets (at most
// opts.MaxShrunk, several at a time) that skip does not exclude, to
// minimal edit lists. It returns them by index into outs.
func (r *runner) shrinkFailures(ctx context.Context, outs []Outcome, skip func(int) bool) map[int]shrunkSet {
	var picked []int
	for i, o := range outs {
		// Only plain failures are shrunk: a set that timed out would spend
		// the time limit on every shrink run.
		if o.Verdict == Fail && !skip(i) && len(picked) < r.opts.MaxShrunk {
			picked = append(picked, i)
		}
	}
	results := make([]shrunkSet, len(picked))
	sem := make(chan struct{}, max(1, r.opts.Parallel))
	var wg sync.WaitGroup
	for k, i := range picked {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			last := outs[i]
			fails := func(edits []Edit) bool {
				got := r.run(ctx, Scenario{Name: outs[i].Scenario.Name + "-shrink", Edits: edits})
				if got.Verdict == Fail {
					last = got
					return true
				}
				return false
			}
			edits := Shrink(outs[i].Scenario.Edits, fails, r.opts.ShrinkRuns)
			results[k] = shrunkSet{Edits: edits, Outcome: last}
		})
	}
	wg.Wait()
	shrunk := make(map[int]shrunkSet, len(picked))
	for k, i := range picked {
		shrunk[i] = results[k]
	}
	return shrunk
}

// scenarioList is the scenarios of a check run. By default: when the
// head's probe learned its policy, the catalogue without the scenarios
// that edit one fixed path each way plus the consistency scenarios over
// every protected path; else the whole catalogue plus two scenarios per
// pattern. An explicit catalogue runs as it is, with the consistency
// scenarios when o.Consistency asks for them.
func (r *runner) scenarioList(o Options, head probeResult) []Scenario {
	cons := consistencyScenarios(r.base, head.Learned)
	if o.Catalogue != nil {
		if o.Consistency {
			return append(slices.Clone(o.Catalogue), cons...)
		}
		return o.Catalogue
	}
	if cons == nil {
		return append(Catalogue(), policyScenarios(r.generated)...)
	}
	return append(probedCatalogue(), cons...)
}

// releasedAtBase returns restore.released as the base's configuration
// has it: which protected paths a change may stop protecting is part of
// the gate, so the PR under verification cannot release a path itself.
// The note says when the head lists paths the base does not.
func releasedAtBase(in *checks.Input) ([]string, string) {
	var base []string
	if in.BaseConfig != nil && in.BaseConfig.Restore != nil {
		base = in.BaseConfig.Restore.Released
	}
	var added []string
	if in.Config.Restore != nil {
		for _, p := range in.Config.Restore.Released {
			if !slices.Contains(base, p) {
				added = append(added, "`"+p+"`")
			}
		}
	}
	if len(added) == 0 {
		return base, ""
	}
	return base, fmt.Sprintf("The head's restore.released adds %s; it applies once it is on the base branch, so this change is judged without it.", strings.Join(added, ", "))
}
