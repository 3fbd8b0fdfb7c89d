package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/words"
)

// baseCmp is what the base's step gave for one scenario that fails at head.
type baseCmp struct {
	// Verdict is the base's verdict; empty when the base side did not run
	// (the scenario passes at head, or the step is the same at base).
	Verdict Verdict
	// PreExisting is true when the failure also happens at the base, with
	// no difference that only the head has.
	PreExisting bool
	// OnlyAtHead lists the head's differences that the base does not have,
	// when the base fails too.
	OnlyAtHead []string
}

// comparison is the base side of one check run.
type comparison struct {
	// Ran is true when a base column belongs in the table.
	Ran bool
	// Unchanged is true when the step and the policy are byte-identical at
	// base and head in every variable set: nothing can fail the PR.
	Unchanged bool
	Sets      int // variable sets compared
	// Strict is pre_existing: fail (read at the base).
	Strict bool
	// Note says why the base side did not run, when it should have.
	Note              string
	Catalogue, Random []baseCmp
	BaseRuns          int // runs of the base's step
}

// compareWithBase runs the base's restore step on the scenarios that fail
// at head, and only on those: a green PR costs nothing more.
func compareWithBase(ctx context.Context, in *checks.Input, side baseSide, cat, random []Outcome) comparison {
	cmp := comparison{
		Strict:    config.PreExistingFails(in.BaseConfig, in.Config),
		Catalogue: make([]baseCmp, len(cat)),
		Random:    make([]baseCmp, len(random)),
	}
	var failing []Scenario
	var at []*baseCmp
	for i, o := range cat {
		if o.Verdict != Pass && o.Verdict != Broken {
			failing = append(failing, o.Scenario)
			at = append(at, &cmp.Catalogue[i])
		}
	}
	for i, o := range random {
		if o.Verdict != Pass && o.Verdict != Broken {
			failing = append(failing, o.Scenario)
			at = append(at, &cmp.Random[i])
		}
	}
	cmp.Unchanged, cmp.Sets = side.unchanged, side.sets
	if len(failing) == 0 {
		return cmp
	}
	cmp.Ran = true
	if side.unchanged {
		for _, b := range at {
			b.Verdict, b.PreExisting = Fail, true
		}
		return cmp
	}
	br := side.runner
	if br == nil {
		cmp.Note = side.note
		for _, b := range at {
			b.Verdict = Broken
		}
		return cmp
	}
	outs := br.runAll(ctx, failing)
	cmp.BaseRuns = len(outs)
	var headOuts []Outcome
	for _, o := range cat {
		if o.Verdict != Pass && o.Verdict != Broken {
			headOuts = append(headOuts, o)
		}
	}
	for _, o := range random {
		if o.Verdict != Pass && o.Verdict != Broken {
			headOuts = append(headOuts, o)
		}
	}
	for k, b := range at {
		*b = judgeBase(headOuts[k], outs[k])
	}
	return cmp
}

// baseSide is the base's step, ready to run on the head's fixture.
type baseSide struct {
	// runner runs the base's step with the base's own settings and
	// policy; nil when the base has no step, and note says why.
	runner *runner
	note   string
	// unchanged: the step and its settings are byte-identical at base and
	// head in sets variable sets (sameAtBase).
	unchanged bool
	sets      int
}

// renderBaseStep renders the base's restore step with the base's own
// restore settings (the head's when the base has none), for the head's
// fixture: it is judged by what it promised, not by what the PR adds.
func renderBaseStep(ctx context.Context, in *checks.Input, r *runner) (*Step, *stop) {
	cfg, rc := baseRestore(in)
	return renderStep(ctx, in.Plan.Trees, cfg, rc, baseRev(in), "base", r.baseSHA)
}

// newBaseSide is the base side of a check run: the base's step as
// renderBaseStep rendered it (st says why there is none), with its report
// keys and fallback learned as the head's are.
func newBaseSide(ctx context.Context, in *checks.Input, r *runner, unchanged bool, sets int, baseStep *Step, st *stop) baseSide {
	side := baseSide{unchanged: unchanged, sets: sets}
	_, rc := baseRestore(in)
	if st != nil {
		side.note = "The base has no restore step to compare with (" + strings.TrimSuffix(st.title, ".") + "), so every failure counts."
		return side
	}
	// The base's step is judged by the base's own policy: what its probe
	// shows, and the list its own step matches paths against.
	pol := policyOf(baseStep, rc)
	policy, err := NewPolicy(pol.Patterns)
	if err != nil {
		side.note = fmt.Sprintf("The base's restore policy is not valid (%v), so every failure counts.", err)
		return side
	}
	baseRoot := filepath.Join(r.root, "base-side")
	if err := os.MkdirAll(baseRoot, 0o755); err != nil {
		side.note = fmt.Sprintf("The base side did not run: %v.", err)
		return side
	}
	br := &runner{step: baseStep, policy: policy, pol: pol, generated: r.generated, groups: r.groups, keys: defaultReportKeys,
		base: r.base, baseSHA: r.baseSHA, src: r.src, root: baseRoot, opts: r.opts, phases: r.phases}
	// The base's report is read by the base's own keys.
	br.keys, _ = br.learnKeys(ctx, rc.ReportKeys)
	br.learnFallback(ctx, rc.Explicit)
	side.runner = br
	return side
}

// judgeBase compares the head's failing outcome with the base's outcome of
// the same scenario. The failure is pre-existing when the base fails the
// same way: every difference of the head is also a difference of the base.
func judgeBase(head, base Outcome) baseCmp {
	b := baseCmp{Verdict: base.Verdict}
	if base.Verdict != Fail && base.Verdict != TimedOut {
		return b
	}
	// A time-out depends on the machine's load as much as on the step: a
	// base that also ran out of time does not show that the base fails the
	// same way, so a head time-out is never excused by it.
	if head.Verdict == TimedOut || base.Verdict == TimedOut {
		b.OnlyAtHead = append([]string(nil), head.Diffs...)
		return b
	}
	for _, d := range head.Diffs {
		if !slices.Contains(base.Diffs, d) {
			b.OnlyAtHead = append(b.OnlyAtHead, d)
		}
	}
	b.PreExisting = len(b.OnlyAtHead) == 0
	return b
}

// baseRev is the commit the base side renders at: the merge base, as the
// render check does.
func baseRev(in *checks.Input) string {
	if in.Plan.MergeBase != "" {
		return in.Plan.MergeBase
	}
	return in.Plan.Base
}

// sameAtBase reports whether the restore step renders to the same bytes at
// base and head in every variable set of its template, with the same
// policy and the same restore settings. It returns the number of sets.
func sameAtBase(ctx context.Context, in *checks.Input, baseSHA string) (bool, int) {
	head := in.Config.Restore
	if in.BaseConfig == nil || in.BaseConfig.Restore == nil || !sameSettings(in.BaseConfig.Restore, head) {
		return false, 0
	}
	g, rel, err := in.Config.ResolveTemplate(head.Template)
	if err != nil {
		return false, 0
	}
	bg, brel, err := in.BaseConfig.ResolveTemplate(head.Template)
	if err != nil || bg.Root != g.Root || brel != rel || bg.Jinja != g.Jinja {
		return false, 0
	}
	sets := varSets(g, rel, head.Vars)
	bsets := varSets(bg, rel, head.Vars)
	if len(sets) != len(bsets) {
		return false, 0
	}
	render := func(rev string, vars []map[string]any) ([]string, bool) {
		files, err := in.Plan.Trees.GroupFiles(ctx, rev, g)
		if err != nil {
			return nil, false
		}
		if _, ok := files[path.Join(g.Root, rel)]; !ok {
			return nil, false
		}
		env, err := jinja.NewSearchEnv(files, g.Root, g.Search, g.Jinja)
		if err != nil {
			return nil, false
		}
		var out []string
		for _, v := range vars {
			v[config.BaseCommitVar] = baseSHA
			text, err := env.Render(rel, v)
			if err != nil {
				return nil, false
			}
			s, st := cutStep(text, head, path.Join(g.Root, rel))
			if st != nil {
				return nil, false
			}
			out = append(out, s.Command+"\x00"+s.Script)
		}
		return out, true
	}
	h, ok := render(in.Plan.Head, sets)
	if !ok {
		return false, 0
	}
	b, ok := render(baseRev(in), bsets)
	if !ok || !slices.Equal(h, b) {
		return false, 0
	}
	return true, len(sets)
}

// sameSettings reports whether two restore blocks run the same step with
// the same policy and model.
func sameSettings(a, b *config.Restore) bool {
	sec := func(s *config.Section) config.Section {
		if s == nil {
			return config.Section{}
		}
		return *s
	}
	return a.Template == b.Template && a.Command == b.Command && sec(a.Section) == sec(b.Section) &&
		a.Paths == b.Paths && a.Report == b.Report && slices.Equal(a.Patterns, b.Patterns) &&
		a.RefusalExitRule() == b.RefusalExitRule() && a.Fallback == b.Fallback &&
		maps.EqualFunc(a.Vars, b.Vars, func(x, y any) bool { return fmt.Sprint(x) == fmt.Sprint(y) })
}

// varSets lists every variable set of the template with the restore
// block's vars on top.
func varSets(g *config.Group, rel string, over map[string]any) []map[string]any {
	entries := g.TemplateFor(rel)
	if len(entries) == 0 {
		entries = []config.Template{{}}
	}
	var out []map[string]any
	for _, t := range entries[:1] { // the first entry that matches gives the vars, as in the render check
		for _, s := range g.VarSets(t) {
			v := maps.Clone(s.Vars)
			if v == nil {
				v = map[string]any{}
			}
			maps.Copy(v, over)
			out = append(out, v)
		}
	}
	return out
}

// judgeExit is the exit-code part of the model. A step that runs must exit
// 0; when it stops under set -e the difference names the line. A step that
// must refuse may exit with any code unless restore.refusal_exit names
// one, and it must still say ran: false in its report.
func (r *runner) judgeExit(exp Expectation, code int, stderr string, l Layout) []string {
	if exp.Ran {
		if code == 0 {
			return nil
		}
		msg := fmt.Sprintf("the step exits with code %d", code)
		if n := r.step.RenderedLine(stopLine(stderr)); n > 0 {
			msg += fmt.Sprintf("; it stops under set -e at line %d of the rendered script: %s", n, r.step.lineText(n))
		}
		return []string{msg}
	}
	var diffs []string
	switch r.step.RefusalExit {
	case config.RefusalExitZero:
		if code != 0 {
			diffs = append(diffs, fmt.Sprintf("the step refuses (%s) with exit code %d; restore.refusal_exit wants 0", exp.Reason, code))
		}
	case config.RefusalExitNonzero:
		if code == 0 {
			diffs = append(diffs, fmt.Sprintf("the step refuses (%s) with exit code 0; restore.refusal_exit wants a non-zero code", exp.Reason))
		}
	}
	if r.step.Report != "" && l.Report != "" {
		// Read as compareReport reads it: inside the scenario folder only.
		if _, err := safefile.ReadIn(l.Root, relTo(l.Root, l.Report), maxReport); errors.Is(err, fs.ErrNotExist) {
			msg := fmt.Sprintf("the step wrote no report at %s; the model expects ran: false (%s)", r.step.Report, exp.Reason)
			if n := r.step.RenderedLine(stopLine(stderr)); n > 0 {
				msg += fmt.Sprintf("; it stops under set -e at line %d of the rendered script: %s", n, r.step.lineText(n))
			}
			diffs = append(diffs, msg)
		}
	}
	return diffs
}

// lineText is line n (1-based) of the rendered script, trimmed.
func (s *Step) lineText(n int) string {
	lines := strings.Split(s.Rendered, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return words.Code(strings.TrimSpace(lines[n-1]))
}
