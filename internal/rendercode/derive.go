package rendercode

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
)

// memo keeps each commit's reading for the life of the process: a
// commit's tree never changes, and one run reads the base several times.
var memo sync.Map // git folder + "\x00" + commit sha -> *memoEntry

type memoEntry struct {
	once  sync.Once
	found *Found
	note  string // why nothing was read
}

// Config returns the configuration of a repository without a config file
// at rev: config.Default with the groups, the pytest
// suite and the restore template derived from the render code, or the
// defaults with a note on why nothing was derived. It never fails: what it
// cannot read is in cfg.Derived.Notes. Each call returns a new
// configuration.
func Config(ctx context.Context, repo gitx.Repo, rev string) *config.Config {
	sha, err := repo.Resolve(ctx, rev)
	if err != nil {
		cfg := config.Default()
		cfg.Derived = &config.Derivation{Fallback: true, Notes: []string{fmt.Sprintf("The render code at %s is not read (%v): the run uses the built-in datasmith groups.", rev, err)}}
		return cfg
	}
	key := repo.Dir + "\x00" + sha
	e, _ := memo.LoadOrStore(key, &memoEntry{})
	me := e.(*memoEntry)
	me.once.Do(func() { me.found, me.note = read(ctx, repo, sha) })
	cfg := config.Default()
	if me.found == nil {
		if ctx.Err() != nil {
			memo.CompareAndDelete(key, me) // cut short: not kept
		}
		cfg.Derived = &config.Derivation{Fallback: true, Notes: []string{me.note}}
		return cfg
	}
	Apply(cfg, me.found)
	return cfg
}

func read(ctx context.Context, repo gitx.Repo, sha string) (*Found, string) {
	python, _, ok := jinja.FindPython(ctx)
	if !ok {
		return nil, "No python3 with jinja2 is here, so the render code is not read: the run uses the built-in datasmith groups."
	}
	found, err := Read(ctx, repo, sha, python)
	if err != nil {
		return nil, fmt.Sprintf("The render code could not be read (%v): the run uses the built-in datasmith groups.", err)
	}
	observe(ctx, repo, sha, python, found)
	return found, ""
}

// Apply puts what found holds into cfg (config.Default()): its groups,
// when there are any, replace the built-in ones, its suite the default
// suite, and the restore template follows them.
func Apply(cfg *config.Config, found *Found) {
	groups, notes := found.Groups()
	d := &config.Derivation{RenderFiles: found.renderModules(), Notes: notes}
	cfg.Derived = d
	if found.Cut != "" {
		d.Notes = append(d.Notes, found.Cut)
	}
	for _, e := range found.Envs {
		d.Roots = append(d.Roots, e.Roots...)
	}
	if len(groups) == 0 {
		d.Fallback = true
		why := "no Python file builds a jinja2.Environment"
		if len(found.Envs) > 0 {
			why = "no jinja2.Environment has a loader root that can be read statically"
		}
		d.Notes = append([]string{fmt.Sprintf("The render code gives no template group (%s): the run uses the built-in datasmith groups.", why)}, d.Notes...)
		return
	}
	restorePath := ""
	if cfg.Restore != nil {
		if g, rel, err := cfg.ResolveTemplate(cfg.Restore.Template); err == nil {
			restorePath = path.Join(g.Root, rel)
		}
	}
	cfg.Groups = groups
	if cfg.Pytest != nil {
		cfg.Pytest.Suites = nil
		s, ok := found.Suite(groups)
		if o := found.Observation; o != nil {
			// A test whose run renders a template is related, whatever
			// its text names.
			for _, file := range o.testFiles() {
				if !slices.Contains(s.Files, file) {
					s.Files = append(s.Files, file)
					s.Triggers = append(s.Triggers, file)
					ok = true
				}
			}
			if ok && s.Name == "" {
				s.Name = SuiteName
				for _, g := range groups {
					s.Triggers = append(s.Triggers, g.Root+"/**")
				}
				if j, jok := found.jinjaTests(); jok {
					s.Env = j.Env
				}
			}
		}
		if ok {
			// A file the render code copies into the task is part of
			// the task wherever it lives: its change runs the suite.
			for _, c := range found.Copies {
				trig := c.Path
				if !slices.Contains(found.Tree, c.Path) {
					trig += "/**" // a copied folder
				}
				if !slices.Contains(s.Triggers, trig) {
					s.Triggers = append(s.Triggers, trig)
				}
			}
			cfg.Pytest.Suites = []config.Suite{s}
		}
	}
	if cfg.Restore != nil {
		cfg.Restore.Template = restoreTemplate(cfg, restorePath)
	}
}

// restoreTemplate is the template the restore check renders: the built-in
// one when a derived group holds it, else the first shell template whose
// name says it tests or grades, else test.sh in the first group (a file
// that is not there: the check then does not apply).
func restoreTemplate(cfg *config.Config, builtin string) string {
	if g, rel, ok := cfg.GroupOf(builtin); ok && builtin != "" {
		return g.Name + ":" + rel
	}
	for _, g := range cfg.Groups {
		for _, t := range g.Templates {
			name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(path.Base(t.Path), ".j2"), ".jinja"), ".jinja2")
			if strings.HasSuffix(name, ".sh") && (strings.Contains(name, "test") || strings.Contains(name, "grade")) && !strings.ContainsAny(t.Path, "*?[") {
				return g.Name + ":" + t.Path
			}
		}
	}
	return cfg.Groups[0].Name + ":tests/test.sh"
}

// Where returns the notes a report shows about where each group came
// from: "Group `x` (root `r`) comes from the jinja2.Environment at f:l".
func Where(cfg *config.Config) []string {
	if cfg == nil || cfg.Derived == nil {
		return nil
	}
	var out []string
	if !cfg.Derived.Fallback {
		for _, g := range cfg.Groups {
			if g.Where == "" {
				continue
			}
			n := len(g.Templates) - 1 // the catch-all entry
			out = append(out, fmt.Sprintf("Without a config file, the group `%s` (root `%s`) comes from the jinja2.Environment at `%s`: %d template entries, %s.",
				g.Name, g.Root, g.Where, n, options(g.Jinja)))
		}
	}
	return append(out, slices.Clone(cfg.Derived.Notes)...)
}

func options(j config.Jinja) string {
	var on []string
	for _, o := range []struct {
		name string
		set  bool
	}{{"strict undefined", j.StrictUndefined}, {"keep_trailing_newline", j.KeepTrailingNewline}, {"trim_blocks", j.TrimBlocks}, {"lstrip_blocks", j.LstripBlocks}, {"autoescape", j.Autoescape}} {
		if o.set {
			on = append(on, o.name)
		}
	}
	if len(on) == 0 {
		return "no options on"
	}
	return strings.Join(on, ", ") + " on"
}
