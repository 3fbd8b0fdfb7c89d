package restore

import (
	"fmt"
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

// Protects reports whether a path matches one of the patterns.
func (p *Policy) Protects(path string) bool {
	if v, ok := p.protects.Load(path); ok {
		return v.(bool)
	}
	match := false
	for _, re := range p.Patterns {
		if re.MatchString(path) {
			match = true
			break
		}
	}
	p.protects.Store(path, match)
	return match
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
