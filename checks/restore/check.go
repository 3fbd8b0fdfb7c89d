package restore

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// Check is the restore check.
type Check struct {
	opts Options
}

// New returns the restore check with default options.
func New() checks.Check { return &Check{} }

// NewWithOptions returns the restore check with the given options.
func NewWithOptions(o Options) *Check { return &Check{opts: o} }

// Name implements checks.Check.
func (c *Check) Name() string { return "restore" }

// Run implements checks.Check.
func (c *Check) Run(ctx context.Context, in *checks.Input) checks.Result {
	start := time.Now()
	res := checks.Result{Check: c.Name()}
	if f, note := policyFinding(in); f != nil {
		res.Findings = append(res.Findings, *f)
		res.Notes = append(res.Notes, note)
	}
	rc := in.Config.Restore
	if rc == nil {
		res.Conclusion = checks.NotRun
		res.Title = "The config turns the restore check off."
		res.Summary = res.Title
		return res
	}
	step, st := prepareStep(ctx, in, rc)
	if st != nil {
		res.Conclusion, res.Title, res.Summary = st.conclusion, st.title, st.title
		if st.finding != nil {
			res.Findings = append(res.Findings, *st.finding)
			res.Summary = st.finding.Message
		}
		return res
	}
	policy, err := NewPolicy(rc.Patterns)
	if err != nil {
		return c.internal(res, "The restore policy is not valid", err)
	}
	root, cleanup, err := workRoot(in.WorkDir)
	if err != nil {
		return c.internal(res, "The restore check cannot make its folders", err)
	}
	defer cleanup()
	baseDir, sha, base, err := prepare(ctx, root)
	if err != nil {
		return c.internal(res, "The restore check cannot build its fixture", err)
	}
	opts := c.opts.settle()
	r := &runner{step: step, policy: policy, base: base, baseSHA: sha, src: copySource{baseDir}, root: root, opts: opts}
	catOuts := r.runAll(ctx, opts.Catalogue)
	ri := resultInput{step: step, seed: rc.Random.Seed, count: rc.Random.Count, catalogue: catOuts, parallel: opts.Parallel, command: reproduce(in)}
	// A step that hangs in the catalogue would hang in the random sets
	// too, each until the time limit: skip them and say so.
	for _, o := range catOuts {
		if o.Verdict == TimedOut {
			ri.skipReason = "a catalogue scenario timed out"
			break
		}
	}
	if ri.skipReason == "" && rc.Random.Count > 0 {
		ri.random = r.runAll(ctx, RandomScenarios(base, rc.Random.Seed, rc.Random.Count))
		ri.shrunk = r.shrinkFailures(ctx, ri.random)
	}
	ri.wall = time.Since(start)
	assemble(&res, ri)
	return res
}

func (c *Check) internal(res checks.Result, title string, err error) checks.Result {
	res.Conclusion = checks.Failure
	res.Title = title
	res.Summary = fmt.Sprintf("%s: %v", title, err)
	return res
}

// workRoot is the folder for the fixture and the scenario folders.
func workRoot(workDir string) (string, func(), error) {
	if workDir == "" {
		dir, err := os.MkdirTemp("", "template-verify-restore-")
		if err != nil {
			return "", nil, err
		}
		return dir, func() { _ = os.RemoveAll(dir) }, nil
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
	return fmt.Sprintf("template-verify run --repo . --base %s --head %s", in.Plan.BaseRev, in.Plan.HeadRev)
}

// shrinkFailures shrinks the first failing random sets to minimal edit
// lists. It returns them by index into outs.
func (r *runner) shrinkFailures(ctx context.Context, outs []Outcome) map[int][]Edit {
	shrunk := map[int][]Edit{}
	for i, o := range outs {
		// Only plain failures are shrunk: a set that timed out would spend
		// the time limit on every shrink run.
		if o.Verdict != Fail || len(shrunk) >= r.opts.MaxShrunk || ctx.Err() != nil {
			continue
		}
		fails := func(edits []Edit) bool {
			got := r.run(ctx, Scenario{Name: o.Scenario.Name + "-shrink", Edits: edits})
			return got.Verdict == Fail
		}
		shrunk[i] = Shrink(o.Scenario.Edits, fails, r.opts.ShrinkRuns)
	}
	return shrunk
}
