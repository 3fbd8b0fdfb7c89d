package restore

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sync"

	"github.com/formula-code/template-verify/internal/fixture"
)

// Policy is the restore policy: the regular expressions (Go syntax, on
// slash paths) of the paths that go back to the base.
// Patterns must not change once Protects has been called.
type Policy struct {
	Patterns []*regexp.Regexp
	// learned is what a probe run of the step showed, per path: true when
	// the step put the path back after a plain edit, false when it left
	// the agent's edit. It decides before the patterns (see Learn).
	learned map[string]bool
	// folders is, per folder of a learned path, 1 when the step put back
	// every learned path under it, -1 when it put back none, 0 when mixed
	// (nil: no inference by folder).
	folders map[string]int
	// protects remembers Protects's answer per path: every scenario asks
	// about the same fixture paths, and the patterns' matching was the
	// largest allocation of a restore run.
	protects sync.Map // path → bool
}

// NewPolicy compiles the patterns of the configuration.
func NewPolicy(patterns []string) (*Policy, error) {
	p := &Policy{}
	for _, s := range patterns {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("restore pattern %q: %w", s, err)
		}
		p.Patterns = append(p.Patterns, re)
	}
	return p, nil
}

// Learn makes the policy judge by behaviour: a path in learned is
// protected when learned says so, whatever the patterns say. With
// byFolder, a path that was not probed is protected as the probed paths
// of its nearest folder are, when they agree; the patterns decide the
// rest. Learn must be called before Protects.
func (p *Policy) Learn(learned map[string]bool, byFolder bool) {
	p.protects.Clear()
	p.learned = learned
	p.folders = nil
	if !byFolder {
		return
	}
	p.folders = map[string]int{}
	for q, v := range learned {
		sign := -1
		if v {
			sign = 1
		}
		for d := path.Dir(q); d != "."; d = path.Dir(d) {
			old, seen := p.folders[d]
			switch {
			case !seen:
				p.folders[d] = sign
			case old != sign:
				p.folders[d] = 0
			}
		}
	}
}

// Protects reports whether the step must put a path back: what the probe
// learned about it, else its folder's learned paths (see Learn), else
// whether it matches one of the patterns.
func (p *Policy) Protects(q string) bool {
	if v, ok := p.protects.Load(q); ok {
		return v.(bool)
	}
	match, decided := p.learned[q]
	for d := path.Dir(q); !decided && p.folders != nil && d != "."; d = path.Dir(d) {
		v, ok := p.folders[d]
		if !ok {
			continue
		}
		match, decided = v > 0, v != 0
		break
	}
	if !decided {
		match = p.MatchesPatterns(q)
	}
	p.protects.Store(q, match)
	return match
}

// MatchesPatterns reports whether a path matches one of the patterns,
// whatever was learned.
func (p *Policy) MatchesPatterns(q string) bool {
	for _, re := range p.Patterns {
		if re.MatchString(q) {
			return true
		}
	}
	return false
}

// Expectation is what the model says one scenario must end with.
type Expectation struct {
	// Ran is false when the step must change nothing: no baseline sha file,
	// or a HEAD that does not descend from the base.
	Ran bool
	// Reason says why the step must not run; empty when Ran.
	Reason string
	Tree   fixture.Tree
	// Discarded lists, sorted, the protected paths where the agent's tree
	// differs from the base (content, mode, type or presence).
	Discarded []string
	// Remaining is always empty: after a correct step no protected path
	// differs from the base.
	Remaining []string
}

// Expect applies the policy to the agent's work tree. base is the tree of
// the base commit. When ran is false the work tree stays as it is, and
// reason says why.
func (p *Policy) Expect(base, work fixture.Tree, ran bool, reason string) Expectation {
	if !ran {
		return Expectation{Reason: reason, Tree: work.Clone(), Discarded: []string{}, Remaining: []string{}}
	}
	want := fixture.Tree{}
	discarded := []string{}
	seen := map[string]bool{}
	visit := func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		b, inBase := base[path]
		w, inWork := work[path]
		if !p.Protects(path) {
			if inWork {
				want[path] = w
			}
			return
		}
		if inBase {
			want[path] = b
		}
		if inBase != inWork || (inBase && !b.Same(w)) {
			discarded = append(discarded, path)
		}
	}
	for path := range base {
		visit(path)
	}
	for path := range work {
		visit(path)
	}
	slices.Sort(discarded)
	return Expectation{Ran: true, Tree: want, Discarded: discarded, Remaining: []string{}}
}
