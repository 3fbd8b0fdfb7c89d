package taint

import (
	"maps"
	"slices"
)

// origins are the names whose agent-set values a variable may carry after
// a source of an agent-writable file. Empty means covered: every path
// gave the variable a value from the script itself. A variable that no
// assignment reached since the last source carries its own name.
type origins []string

func (o origins) with(more ...string) origins {
	out := slices.Clone(o)
	for _, n := range more {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func (o origins) union(p origins) origins { return o.with(p...) }

// state is what the analysis knows at one point of the script, over every
// path that reaches it.
type state struct {
	// dead: no path reaches this point (after exit, return, break).
	dead bool
	// sourced: some path ran a source of an agent-writable file.
	sourced bool
	src     SourceAt // the last such source, for messages
	// vars holds the variables assigned since the last source, with what
	// their values may carry; a variable not here carries its own name.
	vars map[string]origins
	// ro holds the readonly variables with what they carried when they
	// were made readonly; a source cannot change them.
	ro map[string]origins
	// funcs are the functions that every path defined after the last
	// source: a sourced file cannot have shadowed them.
	funcs map[string]bool
	// vals are the literal values a variable may hold here, over every
	// path, for the paths of sources; a variable not here is unknown.
	vals map[string][]string
	// made are the files every path wrote anew (a > redirection, tee):
	// a later source of one reads what the script wrote, not the agent.
	made map[string]bool
}

func newState() *state {
	return &state{vars: map[string]origins{}, ro: map[string]origins{}, funcs: map[string]bool{}, vals: map[string][]string{}, made: map[string]bool{}}
}

func (s *state) clone() *state {
	c := *s
	c.vars = maps.Clone(s.vars)
	c.ro = maps.Clone(s.ro)
	c.funcs = maps.Clone(s.funcs)
	c.vals = maps.Clone(s.vals)
	c.made = maps.Clone(s.made)
	return &c
}

// status is what the variable name carries here; empty is covered.
func (s *state) status(name string) origins {
	if !s.sourced {
		return nil
	}
	if o, ok := s.ro[name]; ok {
		return o
	}
	if o, ok := s.vars[name]; ok {
		return o
	}
	return origins{name}
}

// source records a source of an agent-writable file: from here on the file
// may have set every variable that is not readonly and defined any
// function.
func (s *state) source(at SourceAt) {
	if s.dead {
		return
	}
	s.sourced = true
	s.src = at
	s.vars = map[string]origins{}
	s.funcs = map[string]bool{}
}

// assign gives name a value that carries o; a readonly name keeps its value
// (bash refuses the assignment).
func (s *state) assign(name string, o origins) {
	if s.dead {
		return
	}
	if _, ro := s.ro[name]; ro {
		return
	}
	s.vars[name] = o
}

// readonly freezes what name carries now.
func (s *state) readonly(name string) {
	if s.dead {
		return
	}
	if _, ok := s.ro[name]; ok {
		return
	}
	s.ro[name] = s.status(name)
	delete(s.vars, name)
}

// forget makes name carry its own name again, as if never assigned since
// the source (used where the analysis cannot tell what it holds).
func (s *state) forget(name string) {
	if _, ro := s.ro[name]; !ro {
		delete(s.vars, name)
	}
}

// join is the state where the paths of a and b meet: a variable is covered
// only if it is covered on both, and carries what either path gives it.
func join(a, b *state) *state {
	switch {
	case a.dead:
		return b.clone()
	case b.dead:
		return a.clone()
	}
	r := newState()
	r.sourced = a.sourced || b.sourced
	r.src = a.src
	if b.src.Line > r.src.Line {
		r.src = b.src
	}
	// A variable has a known value where every path gives it one.
	for n, av := range a.vals {
		if bv, ok := b.vals[n]; ok {
			v := slices.Clone(av)
			for _, x := range bv {
				if !slices.Contains(v, x) {
					v = append(v, x)
				}
			}
			slices.Sort(v)
			r.vals[n] = v
		}
	}
	for f := range a.made {
		if b.made[f] {
			r.made[f] = true
		}
	}
	if !r.sourced {
		return r
	}
	// Readonly on both paths stays readonly; on one path only, the name
	// is an ordinary variable with what either path gives it.
	for n, ao := range a.ro {
		if bo, ok := b.ro[n]; ok {
			r.ro[n] = ao.union(bo)
		}
	}
	for _, m := range []map[string]origins{a.vars, b.vars, a.ro, b.ro} {
		for n := range m {
			if _, ro := r.ro[n]; ro {
				continue
			}
			if _, done := r.vars[n]; done {
				continue
			}
			o := a.status(n).union(b.status(n))
			if !slices.Equal(o, origins{n}) {
				r.vars[n] = o
			}
		}
	}
	switch {
	case !a.sourced:
		r.funcs = maps.Clone(b.funcs)
	case !b.sourced:
		r.funcs = maps.Clone(a.funcs)
	default:
		for f := range a.funcs {
			if b.funcs[f] {
				r.funcs[f] = true
			}
		}
	}
	return r
}

func joinAll(first *state, rest ...*state) *state {
	r := first.clone()
	for _, s := range rest {
		r = join(r, s)
	}
	return r
}

// same reports whether two states are equal for the analysis (the source
// named in messages aside).
func same(a, b *state) bool {
	if a.dead != b.dead || a.sourced != b.sourced || len(a.vars) != len(b.vars) || len(a.ro) != len(b.ro) || !maps.Equal(a.funcs, b.funcs) || !maps.Equal(a.made, b.made) ||
		!maps.EqualFunc(a.vals, b.vals, slices.Equal) {
		return false
	}
	for n, o := range a.vars {
		if p, ok := b.vars[n]; !ok || !slices.Equal(o, p) {
			return false
		}
	}
	for n, o := range a.ro {
		if p, ok := b.ro[n]; !ok || !slices.Equal(o, p) {
			return false
		}
	}
	return true
}
