package restore

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
)

// newPaths are the places where random edits create files: protected and
// unprotected folders, names with spaces and non-ASCII letters.
var newPaths = []string{
	"tests/test_rand_%d.py",
	"tests/sub/test_rand_%d.py",
	"src/pkg/tests/test_rand_%d.py",
	"src/pkg/rand_%d_test.py",
	"src/pkg/conftest.py",
	"benchmarks/bench_rand_%d.py",
	"benchmarks/sp ace %d.py",
	"benchmarks/deep/bench_%d.py",
	".github/workflows/rand_%d.yml",
	".snapshots/core/snap_r%d.json",
	"src/pkg/mod_%d.py",
	"src/pkg/módulo_%d.py",
	"docs/nöte %d.md",
	"notes/n_%d.txt",
}

// RandomEdits returns the edit list of random set i (0-based) of a seed.
// Each set has its own generator, so one set can be replayed without the
// others. extra are more places for new files (the paths generated from
// the policy), beside the built-in ones.
func RandomEdits(base fixture.Tree, seed int64, i int, extra ...string) []Edit {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
	g := &generator{rng: rng, kinds: map[string]string{}, base: base, paths: append(slices.Clip(newPaths), extra...)}
	for p, e := range base {
		g.kinds[p] = e.Mode
	}
	n := 1 + rng.IntN(6)
	var edits []Edit
	for len(edits) < n {
		if e, ok := g.next(); ok {
			edits = append(edits, e)
		}
	}
	return edits
}

// RandomScenarios returns count random scenarios named random-1 and on,
// at most config.CeilingLimits.RandomSets of them (the config refuses a
// larger count; this bound keeps memory safe whatever the caller passes).
func RandomScenarios(base fixture.Tree, seed int64, count int, extra ...string) []Scenario {
	count = max(0, min(count, config.CeilingLimits.RandomSets))
	out := make([]Scenario, count)
	for i := range count {
		out[i] = Scenario{Name: fmt.Sprintf("random-%d", i+1), Edits: RandomEdits(base, seed, i, extra...)}
	}
	return out
}

// generator tracks which paths exist and what they are, so every edit it
// makes applies cleanly: no file where a folder is, no chmod of a symlink.
type generator struct {
	rng   *rand.Rand
	kinds map[string]string // path -> git mode of what is there now
	base  fixture.Tree
	paths []string // places for new files, with %d for a number
}

func (g *generator) present() []string {
	var out []string
	for p := range g.kinds {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (g *generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *generator) newPath() string {
	for {
		p := g.pick(g.paths)
		if strings.Contains(p, "%d") {
			p = fmt.Sprintf(p, g.rng.IntN(1000))
		}
		if _, ok := g.kinds[p]; !ok {
			return p
		}
	}
}

func (g *generator) text() string {
	return fmt.Sprintf("value = %d\n", g.rng.IntN(1_000_000))
}

// next returns one edit, or false when the chosen kind does not apply now.
func (g *generator) next() (Edit, bool) {
	present := g.present()
	if len(present) == 0 {
		p := g.newPath()
		g.kinds[p] = fixture.ModeFile
		return write(p, g.text()), true
	}
	switch k := g.rng.IntN(100); {
	case k < 22: // edit an existing file
		p := g.pick(present)
		if g.kinds[p] == fixture.ModeSymlink {
			g.kinds[p] = fixture.ModeFile
		}
		return write(p, g.text()), true
	case k < 27: // put a file back to its base content
		p := g.pick(present)
		b, ok := g.base[p]
		if !ok || b.IsSymlink() || g.kinds[p] != b.Mode {
			return Edit{}, false
		}
		return write(p, string(b.Data)), true
	case k < 37:
		p := g.pick(present)
		if g.kinds[p] == fixture.ModeSymlink {
			return Edit{}, false
		}
		return appendTo(p, g.text()), true
	case k < 52:
		p := g.newPath()
		g.kinds[p] = fixture.ModeFile
		return write(p, g.text()), true
	case k < 64:
		p := g.pick(present)
		delete(g.kinds, p)
		return del(p), true
	case k < 70:
		p := g.pick(present)
		switch g.kinds[p] {
		case fixture.ModeFile:
			g.kinds[p] = fixture.ModeExec
			return chmod(p, "+x"), true
		case fixture.ModeExec:
			g.kinds[p] = fixture.ModeFile
			return chmod(p, "-x"), true
		}
		return Edit{}, false
	case k < 76:
		p, to := g.pick(present), g.pick(present)
		if p == to {
			return Edit{}, false
		}
		rel := relPath(path.Dir(p), to)
		g.kinds[p] = fixture.ModeSymlink
		return symlink(p, rel), true
	case k < 82:
		p := g.pick(present)
		to := g.newPath()
		g.kinds[to] = g.kinds[p]
		delete(g.kinds, p)
		return move(p, to), true
	case k < 90:
		return add("."), true
	case k < 94:
		p := g.pick(present)
		return add(p), true
	default:
		return commit(fmt.Sprintf("agent commit %d", g.rng.IntN(100))), true
	}
}

// relPath is the relative path from folder dir to the slash path to.
func relPath(dir, to string) string {
	if dir == "." {
		return to
	}
	up := strings.Repeat("../", strings.Count(dir, "/")+1)
	return up + to
}
