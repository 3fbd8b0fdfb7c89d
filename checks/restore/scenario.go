package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// Scenario is one agent-like change of the base fixture.
type Scenario struct {
	Name  string
	Edits []Edit
	// NoBaseline leaves out the baseline sha file.
	NoBaseline bool
}

// Verdict is the outcome of one scenario.
type Verdict string

// Scenario verdicts.
const (
	Pass     Verdict = "pass"
	Fail     Verdict = "fail"
	TimedOut Verdict = "timed out"
	// Broken means the scenario itself could not be set up: a bug in the
	// catalogue or the machine, not in the step.
	Broken Verdict = "error"
)

// Outcome is what one scenario gave.
type Outcome struct {
	Scenario Scenario
	Verdict  Verdict
	Expect   Expectation
	// Diffs says how the real tree and report differ from the model, in
	// path order with report lines last.
	Diffs     []string
	Err       error // set for Broken
	ExitCode  int
	Stderr    string // the end of the step's stderr
	Sandboxed bool
	Backend   string `json:"-"` // the sandbox backend that ran the step
	// Report is the step's report as it wrote it (nil: none was read).
	Report []byte
	// Work is the agent's tree before the step, and After the tree the
	// step left (nil when it could not be read); the probes learn from
	// them.
	Work  fixture.Tree `json:"-"`
	After fixture.Tree `json:"-"`
}

// source makes a fresh copy of the base fixture repository at dst
// (*fixture.Base).
type source interface {
	Make(ctx context.Context, dst string) error
}

const baseMessage = "base"

// runner holds what every scenario of one check run shares.
type runner struct {
	step   *Step
	policy *Policy
	// pol is where the policy comes from; basePol is the base's, nil when
	// the base has no step.
	pol     revisionPolicy
	basePol *revisionPolicy
	// generated are the paths made from the patterns of both policies,
	// and skippedPatterns the patterns no valid path matches.
	generated       []patternPaths
	skippedPatterns []string
	// groups are the names of the probe fixture that the step must treat
	// alike.
	groups []nameGroup
	// keys are the report's keys for this step.
	keys    ReportKeys
	base    fixture.Tree
	baseSHA string
	src     source
	root    string // scenario folders are made under it
	opts    settled
	seq     atomic.Int64
	phases  *phases // nil unless a benchmark measures
}

// phases adds up where the scenario runs of a check spend their time: the
// harness's own work (copying the fixture, the edits, reading the trees,
// the model, removing the folder) and the step (the sandboxed run).
type phases struct {
	harness, step, setup atomic.Int64 // nanoseconds
	runs                 atomic.Int64
}

// run executes one scenario and compares the result with the model.
func (r *runner) run(ctx context.Context, sc Scenario) (out Outcome) {
	out = Outcome{Scenario: sc, ExitCode: -1}
	var stepTime time.Duration
	if r.phases != nil {
		start := time.Now()
		// Registered first, so it runs last: after the folder is removed.
		defer func() {
			r.phases.harness.Add(int64(time.Since(start) - stepTime))
			r.phases.step.Add(int64(stepTime))
			r.phases.runs.Add(1)
		}()
	}
	broken := func(err error) Outcome {
		out.Verdict, out.Err = Broken, err
		return out
	}
	dir := filepath.Join(r.root, fmt.Sprintf("%04d-%s", r.seq.Add(1), slug(sc.Name)))
	if !r.opts.Keep {
		defer os.RemoveAll(dir)
	}
	l := NewLayout(dir, r.step.Paths, r.step.Report)
	// Before any folder is made: the paths of the config stay inside.
	if err := checkLayout(l); err != nil {
		return broken(err)
	}
	dirs := []string{dir, l.Logs, l.Home, filepath.Dir(l.Baseline)}
	if l.Report != "" {
		dirs = append(dirs, filepath.Dir(l.Report))
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return broken(err)
		}
	}
	if err := r.src.Make(ctx, l.Repo); err != nil {
		return broken(err)
	}
	if err := Apply(ctx, l.Repo, sc.Edits); err != nil {
		return broken(err)
	}
	if !sc.NoBaseline {
		if err := os.WriteFile(l.Baseline, []byte(r.baseSHA+"\n"), 0o644); err != nil {
			return broken(err)
		}
	}
	work, err := fixture.ReadWork(ctx, l.Repo)
	if err != nil {
		return broken(err)
	}
	ran, reason := true, ""
	switch {
	case sc.NoBaseline && !r.step.FallsBack: // with the fallback, the base is the rendered base_commit
		ran, reason = false, "no baseline sha file"
	case movesHead(sc.Edits) && !descends(l.Repo, r.baseSHA):
		ran, reason = false, "HEAD does not descend from the base"
	}
	out.Expect = r.policy.Expect(r.base, work, ran, reason)

	args, err := r.command(l)
	if err != nil {
		return broken(err)
	}
	stepStart := time.Now()
	res := sandbox.Run(ctx, sandbox.Spec{
		Args:      args,
		Dir:       l.Repo,
		Home:      l.Home,
		Env:       []string{"PATH=" + r.opts.Path},
		Writable:  []string{dir},
		Timeout:   r.opts.ScenarioTimeout,
		MaxOutput: r.opts.MaxOutput,
		MaxMemory: StepMemory,
		Sandbox:   r.opts.Sandbox,
	})
	stepTime = time.Since(stepStart)
	out.ExitCode, out.Sandboxed, out.Backend = res.ExitCode, res.Sandboxed, res.Backend
	out.Stderr = sandbox.Tail(res.Stderr, 2000)
	switch {
	case res.TimedOut:
		out.Verdict = TimedOut
		out.Diffs = []string{fmt.Sprintf("the step ran past the limit of %s and was killed", r.opts.ScenarioTimeout)}
		return out
	case ctx.Err() != nil:
		return broken(fmt.Errorf("cancelled: %w", ctx.Err()))
	case res.Err != nil:
		return broken(res.Err)
	}
	real, err := fixture.ReadWorkAfter(ctx, l.Repo, work)
	if err != nil {
		// The step left a tree that cannot be read as data (the repository
		// is a symlink, a file grew past the limits): its failure.
		out.Verdict = Fail
		out.Diffs = []string{fmt.Sprintf("the work tree cannot be read after the step: %v", err)}
		return out
	}
	out.Work, out.After = work, real
	out.Diffs = compareTrees(r.policy, out.Expect, real, r.base, work)
	out.Diffs = append(out.Diffs, r.judgeExit(out.Expect, res.ExitCode, string(res.Stderr), l)...)
	if r.step.Report != "" {
		diffs, data := compareReport(l.Root, relTo(l.Root, l.Report), r.step.Report, out.Expect, r.baseSHA, r.reportKeys())
		out.Diffs, out.Report = append(out.Diffs, diffs...), data
	}
	out.Verdict = Pass
	if len(out.Diffs) > 0 {
		out.Verdict = Fail
	}
	return out
}

// reportKeys are the keys the runner reads the report with: datasmith's
// until learnKeys decides.
func (r *runner) reportKeys() ReportKeys {
	if r.keys == (ReportKeys{}) {
		return defaultReportKeys
	}
	return r.keys
}

// checkLayout refuses a layout whose baseline or report file is not a
// file inside the scenario folder: restore.report and restore.paths come
// from the head's config, and "/logs/artifacts/../../x" maps outside.
func checkLayout(l Layout) error {
	for _, f := range []struct{ key, path string }{{"restore.paths.baseline_sha", l.Baseline}, {"restore.report", l.Report}} {
		if f.path == "" {
			continue
		}
		rel := relTo(l.Root, f.path)
		if _, err := safefile.Inside(rel); err != nil || rel == "." {
			return fmt.Errorf("%s maps to %s, which is not a file inside the scenario folder %s: %w", f.key, f.path, l.Root, safefile.ErrOutside)
		}
	}
	return nil
}

// relTo is p relative to root, or p itself when it has no relative form
// (safefile.Inside refuses it then).
func relTo(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// command writes the step into the scenario folder and returns the bash
// command line that runs it.
func (r *runner) command(l Layout) ([]string, error) {
	if r.step.Command == "" {
		file := filepath.Join(l.Root, "restore-step.sh")
		if err := os.WriteFile(file, []byte(r.step.MapPaths(r.step.Script, l)), 0o644); err != nil {
			return nil, err
		}
		return []string{"bash", file}, nil
	}
	file := filepath.Join(l.Root, "script", r.step.ScriptName)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, []byte(r.step.MapPaths(r.step.Script, l)), 0o755); err != nil {
		return nil, err
	}
	cmd := strings.ReplaceAll(r.step.MapPaths(r.step.Command, l), "{script}", file)
	return []string{"bash", "-c", cmd}, nil
}

// movesHead reports whether an edit can change HEAD; without one, HEAD is
// the base.
func movesHead(edits []Edit) bool {
	for _, e := range edits {
		if e.Op == OpCommit || e.Op == OpOrphan {
			return true
		}
	}
	return false
}

// descends reports whether HEAD is the base or a descendant of it (the
// ancestry rule of the grader). An unborn HEAD does not descend. It reads
// the commits that the harness wrote, before the step runs.
func descends(dir, base string) bool {
	ok, err := fixture.Descends(dir, base)
	return err == nil && ok
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() > 40 {
		return b.String()[:40]
	}
	return b.String()
}

// runAll runs the scenarios with at most opts.Parallel at a time and
// returns their outcomes in the order given.
func (r *runner) runAll(ctx context.Context, list []Scenario) []Outcome {
	out := make([]Outcome, len(list))
	sem := make(chan struct{}, max(1, r.opts.Parallel))
	var wg sync.WaitGroup
	checks.AddWork(ctx, len(list), "scenario runs")
	for i, sc := range list {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = r.run(ctx, sc)
			checks.WorkDone(ctx, 1)
		})
	}
	wg.Wait()
	return out
}

// errNoFixture is returned when the base fixture cannot be built.
var errNoFixture = errors.New("the base fixture cannot be built")

// prepare builds the base fixture with tree once under root, in Go (no
// git process).
func prepare(root string, tree fixture.Tree) (*fixture.Base, error) {
	b, err := fixture.Build(filepath.Join(root, "base"), tree, baseMessage)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoFixture, err)
	}
	return b, nil
}

// elapsed formats a wall time for figures.
func elapsed(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
