package config

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Limits bound the work and memory that a pull request's templates can
// cause. Each field has a default (used when it is 0) and a ceiling (used
// when the config asks for more): a config, even the head's, can only
// tighten a limit below its ceiling, never lift it.
type Limits struct {
	// RenderOutput is the largest output of one render, in bytes.
	RenderOutput int `yaml:"render_output"`
	// RenderMemory is the memory of the process that renders templates,
	// in MB (2^20 bytes).
	RenderMemory int `yaml:"render_memory"`
	// RenderTime limits one render.
	RenderTime Duration `yaml:"render_time"`
	// Templates is the number of templates one run renders.
	Templates int `yaml:"templates"`
	// VarSets is the number of variable sets of one template (the product
	// of its matrix).
	VarSets int `yaml:"var_sets"`
	// RandomSets is the largest restore.random.count.
	RandomSets int `yaml:"random_sets"`
}

// DefaultLimits are the limits of a config that sets none.
var DefaultLimits = Limits{
	RenderOutput: 8 << 20,
	RenderMemory: 384,
	RenderTime:   Duration{20 * time.Second},
	Templates:    1000,
	VarSets:      64,
	RandomSets:   200,
}

// CeilingLimits are the largest limits any config can ask for.
var CeilingLimits = Limits{
	RenderOutput: 32 << 20,
	RenderMemory: 448,
	RenderTime:   Duration{2 * time.Minute},
	Templates:    2000,
	VarSets:      256,
	RandomSets:   1000,
}

// Effective returns the limits with defaults for the fields that are 0 and
// the ceilings for the fields that ask for more.
func (l Limits) Effective() Limits {
	pick := func(v, def, ceil int) int {
		switch {
		case v <= 0:
			return def
		case v > ceil:
			return ceil
		}
		return v
	}
	d, c := DefaultLimits, CeilingLimits
	out := Limits{
		RenderOutput: pick(l.RenderOutput, d.RenderOutput, c.RenderOutput),
		RenderMemory: pick(l.RenderMemory, d.RenderMemory, c.RenderMemory),
		Templates:    pick(l.Templates, d.Templates, c.Templates),
		VarSets:      pick(l.VarSets, d.VarSets, c.VarSets),
		RandomSets:   pick(l.RandomSets, d.RandomSets, c.RandomSets),
		RenderTime:   l.RenderTime,
	}
	switch {
	case out.RenderTime.Duration <= 0:
		out.RenderTime = d.RenderTime
	case out.RenderTime.Duration > c.RenderTime.Duration:
		out.RenderTime = c.RenderTime
	}
	return out
}

// validateLimits rejects negative limits and a restore.random.count above
// the random set limit (a count of a billion would not fit in memory).
func (c *Config) validateLimits(fail func(msg string, keyPath ...string) error) error {
	l := c.Limits
	for _, f := range []struct {
		name string
		v    int
	}{
		{"render_output", l.RenderOutput}, {"render_memory", l.RenderMemory}, {"templates", l.Templates},
		{"var_sets", l.VarSets}, {"random_sets", l.RandomSets},
	} {
		if f.v < 0 {
			return fail(fmt.Sprintf("limits.%s is negative", f.name), "limits", f.name)
		}
	}
	if r := c.Restore; r != nil {
		if max := l.Effective().RandomSets; r.Random.Count > max {
			return fail(fmt.Sprintf("restore.random.count %d is more than the %d random sets that limits.random_sets allows (at most %d)",
				r.Random.Count, max, CeilingLimits.RandomSets), "restore", "random", "count")
		}
	}
	return nil
}

// CountVarSets returns the number of variable sets of a template (the
// product of its matrix), without making them; it stops counting above
// limit and then returns limit+1.
func (g *Group) CountVarSets(t Template, limit int) int {
	if len(t.Sets) > 0 {
		return min(len(t.Sets), limit+1)
	}
	n := 1
	for _, vals := range g.matrixOf(t) {
		if len(vals) == 0 {
			continue
		}
		n *= len(vals)
		if n > limit {
			return limit + 1
		}
	}
	return n
}

// VarSetsUpTo returns at most limit variable sets of a template, in the
// order of VarSets, and the number there are in all (limit+1 when there are
// more than limit). It never makes more than limit sets, so a matrix bomb
// costs no memory.
func (g *Group) VarSetsUpTo(t Template, limit int) (sets []VarSet, total int) {
	if limit < 1 {
		limit = 1
	}
	total = g.CountVarSets(t, limit)
	base := map[string]any{}
	maps.Copy(base, g.Vars)
	maps.Copy(base, t.Vars)
	if len(t.Sets) > 0 {
		for _, s := range t.Sets[:min(len(t.Sets), limit)] {
			vars := maps.Clone(base)
			maps.Copy(vars, s.Vars)
			sets = append(sets, VarSet{Name: s.Name, Vars: vars})
		}
		return sets, total
	}
	matrix := g.matrixOf(t)
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(matrix)) {
		if len(matrix[k]) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return []VarSet{{Name: "default", Vars: base}}, 1
	}
	// Set i picks value (i / stride(k)) % len(matrix[k]) of key k, the last
	// key changing fastest, as the cartesian product of VarSets does.
	idx := make([]int, len(keys))
	for range min(total, limit) {
		vars := maps.Clone(base)
		name := ""
		for j, k := range keys {
			v := matrix[k][idx[j]]
			vars[k] = v
			if name != "" {
				name += ","
			}
			name += fmt.Sprintf("%s=%s", k, formatValue(v))
		}
		sets = append(sets, VarSet{Name: name, Vars: vars})
		for j := len(keys) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < len(matrix[keys[j]]) {
				break
			}
			idx[j] = 0
		}
	}
	return sets, total
}

func (g *Group) matrixOf(t Template) map[string][]any {
	matrix := map[string][]any{}
	maps.Copy(matrix, g.Matrix)
	maps.Copy(matrix, t.Matrix)
	return matrix
}
