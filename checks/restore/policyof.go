package restore

import (
	"context"
	"fmt"
	"slices"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// Where a revision's policy comes from.
const (
	// fromStep: the pattern list the rendered step matches paths against.
	fromStep = "step"
	// fromConfig: restore.patterns of a config file, when the step's list
	// cannot be read.
	fromConfig = "config"
	// fromDefaults: the built-in datasmith patterns, when there is neither.
	fromDefaults = "defaults"
)

// revisionPolicy is the policy that judges one revision's step, and where
// it comes from.
type revisionPolicy struct {
	Patterns []string
	Origin   string
	// Read is what was read from the step (Origin fromStep), and ReadErr
	// why nothing could be (the other origins).
	Read    StepPolicy
	ReadErr error
	// Line is the line of the grep in the rendered script, and
	// TemplateLine in the template (0: unknown).
	Line, TemplateLine int
}

// policyOf decides the policy of one revision: the step's own list,
// read from the rendered step. Only when it cannot be read do the config's
// patterns, or the defaults, judge the step, and the result says so.
func policyOf(s *Step, rc *config.Restore) revisionPolicy {
	read, err := ReadStepPolicy(s.Script)
	if err == nil {
		n := s.RenderedLine(read.Line)
		return revisionPolicy{Patterns: read.Patterns, Origin: fromStep, Read: read, Line: n, TemplateLine: s.TemplateLine(n)}
	}
	origin := fromDefaults
	if rc.Explicit {
		origin = fromConfig
	}
	return revisionPolicy{Patterns: slices.Clone(rc.Patterns), Origin: origin, ReadErr: err}
}

// describe says in one sentence where the policy comes from.
func (p revisionPolicy) describe(side, template string) string {
	switch p.Origin {
	case fromStep:
		where := template
		if p.Line > 0 {
			where = fmt.Sprintf("%s, line %d of the rendered script", template, p.Line)
		}
		return fmt.Sprintf("The %s's restore policy is the step's own list: %s read from %s.", side, plural(len(p.Patterns), "pattern", "patterns"), where)
	case fromConfig:
		return fmt.Sprintf("The %s's step has no pattern list that can be read (%v), so restore.patterns of the config judges it.", side, p.ReadErr)
	}
	return fmt.Sprintf("The %s's step has no pattern list that can be read (%v), so the built-in datasmith patterns judge it.", side, p.ReadErr)
}

// assertionFinding compares patterns that a config file gives with the
// list the step itself uses: the config states what the step must
// protect, and a difference is a failure of that revision.
func assertionFinding(p revisionPolicy, rc *config.Restore, cfg *config.Config, template string) *checks.Finding {
	if p.Origin != fromStep || !rc.Explicit || len(rc.Patterns) == 0 {
		return nil
	}
	ch := diffPatterns(rc.Patterns, p.Patterns)
	if ch.Empty() {
		return nil
	}
	return &checks.Finding{
		Path: template, Line: p.TemplateLine, Level: checks.LevelFailure,
		Title: "The step's restore patterns differ from the config",
		Message: fmt.Sprintf("restore.patterns in %s lists patterns the step does not match (%s), and the step matches patterns the config does not list (%s).",
			orDefault(configFile(cfg), "the config"), patternList(ch.Removed), patternList(ch.Added)),
		Details: "the step's patterns:\n" + lines(p.Patterns) + "the config's patterns:\n" + lines(rc.Patterns),
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// diffPatterns lists the patterns that head adds to base and removes from
// it, each once, in their order.
func diffPatterns(base, head []string) PolicyChange {
	var ch PolicyChange
	for _, p := range head {
		if !slices.Contains(base, p) && !slices.Contains(ch.Added, p) {
			ch.Added = append(ch.Added, p)
		}
	}
	for _, p := range base {
		if !slices.Contains(head, p) && !slices.Contains(ch.Removed, p) {
			ch.Removed = append(ch.Removed, p)
		}
	}
	return ch
}

// policyChangeFinding is the warning and the note that show how the
// head's policy differs from the base's, each read from its own step.
func policyChangeFinding(base, head revisionPolicy, template string) (*checks.Finding, string) {
	ch := diffPatterns(base.Patterns, head.Patterns)
	if ch.Empty() {
		return nil, ""
	}
	note := fmt.Sprintf("The head changes the restore policy. Patterns added: %s. Patterns removed: %s.", patternList(ch.Added), patternList(ch.Removed))
	return &checks.Finding{
		Path: template, Line: head.TemplateLine, Level: checks.LevelWarning,
		Title:   "The restore policy changes",
		Message: fmt.Sprintf("The head adds %d and removes %d restore patterns. Check that the change is intended.", len(ch.Added), len(ch.Removed)),
		Details: "added:\n" + lines(ch.Added) + "removed:\n" + lines(ch.Removed),
	}, note
}

// basePolicy is the policy of the base's step, rendered with the base's
// restore settings (the head's when the base has none); nil when the base
// has no step.
func basePolicy(ctx context.Context, in *checks.Input) *revisionPolicy {
	cfg, rc := baseRestore(in)
	s, st := renderStep(ctx, in.Plan.Trees, cfg, rc, baseRev(in), "base", "")
	if st != nil {
		return nil
	}
	p := policyOf(s, rc)
	return &p
}

// baseRestore is the config and restore block that the base's step runs
// with: the base's own, else the head's.
func baseRestore(in *checks.Input) (*config.Config, *config.Restore) {
	if in.BaseConfig != nil && in.BaseConfig.Restore != nil {
		return in.BaseConfig, in.BaseConfig.Restore
	}
	return in.Config, in.Config.Restore
}

// policyResults adds what the policies of both revisions show: where each
// comes from, a config that asserts other patterns than the step's, and
// the change of the policy against the base. It reports whether the head
// fails an assertion that the base does not.
func policyResults(res *checks.Result, in *checks.Input, r *runner) (failed bool) {
	tmpl := r.step.Template
	res.Notes = append(res.Notes, r.pol.describe("head", tmpl))
	if r.basePol != nil && (r.basePol.Origin != r.pol.Origin || !slices.Equal(r.basePol.Patterns, r.pol.Patterns)) {
		res.Notes = append(res.Notes, r.basePol.describe("base", tmpl))
	}
	if r.pol.Origin != fromStep {
		res.Findings = append(res.Findings, checks.Finding{Path: tmpl, Line: r.step.Line, Level: checks.LevelWarning,
			Title: "The restore policy is not read from the step", Message: r.pol.describe("head", tmpl)})
	}
	if f := assertionFinding(r.pol, in.Config.Restore, in.Config, tmpl); f != nil {
		bcfg, brc := baseRestore(in)
		if r.basePol != nil {
			if bf := assertionFinding(*r.basePol, brc, bcfg, tmpl); bf != nil && bf.Message == f.Message {
				f.Level = checks.LevelWarning
				f.Title += "; it fails before this change"
				f.Message += " The base's step differs from its config the same way, so it fails before this change."
			}
		}
		failed = f.Level == checks.LevelFailure
		res.Findings = append(res.Findings, *f)
	}
	if r.basePol != nil {
		if f, note := policyChangeFinding(*r.basePol, r.pol, tmpl); f != nil {
			res.Findings = append(res.Findings, *f)
			res.Notes = append(res.Notes, note)
		}
	}
	return failed
}
